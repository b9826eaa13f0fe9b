# Lab cases: the paths a newcomer takes (no -d, no -x), and local faults made
# for real: a device file a non-root user cannot open, an empty GID index,
# an MTU above the port's, a CPU outside the affinity, a low memlock limit,
# the netdev down. Each exits at once with its own message and exit code,
# on either side, before any listen or connect. Sourced by tests/lab/run-all.

nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
holder_qps() { "$q" --json qp list | jq -c '[.qps[] | select(.comm == "qpscope-holder")]'; }

case_ "defaults: qp create --pair without -d, then every qp command on it without -d"
run "$q" --json qp create --pair
expect_rc 0
pair=$(jq -r '[.qps[].qpn.raw | tostring] | join(" ")' <<<"$out" 2>/dev/null)
run holder_qps
expect_true "both QPs listed, owned by the holder and marked held (got $out)" python3 -c '
import json, sys
qps = json.loads(sys.argv[1])
assert len(qps) == 2, qps
assert all(q["held"] is True and q["state"]["name"] == "RTS" for q in qps), qps' "$out"
read -r A B <<<"$pair"
run "$q" qp list
expect_rc 0
expect_true "text list: both rows say held yes" bash -c '[ "$(grep -c "qpscope-holder  yes" <<<"$1")" = 2 ]' _ "$out"
run "$q" qp query "$A"
expect_rc 0
expect_out_has "RTS"
run "$q" qp post "$A" --op send -s 64
expect_rc 0
run "$q" qp modify "$B" --state err
expect_rc 0
run "$q" qp destroy --all
expect_rc 0
run holder_qps
expect_true "nothing left in the holder" test "$out" = "[]"

case_ "defaults: ping-pong and bw without -d or -x on either side"
"$q" ping-pong --timeout 30 >/dev/null 2>&1 &
srv=$!
run timeout 120 "$q" ping-pong 127.0.0.1 -n 100 --timeout 30
wait "$srv"; srv_rc=$?
expect_true "ping-pong client 0, server 0 (got $rc, $srv_rc)" test "$rc/$srv_rc" = 0/0
"$q" bw --timeout 30 >/dev/null 2>&1 &
srv=$!
run timeout 120 "$q" bw 127.0.0.1 -n 200 --timeout 30
wait "$srv"; srv_rc=$?
expect_true "bw client 0, server 0 (got $rc, $srv_rc)" test "$rc/$srv_rc" = 0/0

case_ "uverbs0 at 0600: a non-root user is told the file and the fix by every command, before any listen"
chmod 0600 /dev/infiniband/uverbs0
for cmd in "ping-pong" "bw" "ping-pong 127.0.0.1" "bw 127.0.0.1" "ports" "qp create" "qp create --pair" \
           "ping-pong -d rxe0" "qp create -d rxe0"; do
  # A server that passed its checks would listen for 60 s: the bound shows it did not.
  start=$SECONDS
  case $cmd in
    ping-pong* | bw*) run timeout 60 "${nobody[@]}" "$q" $cmd --timeout 60 ;;
    *) run timeout 60 "${nobody[@]}" "$q" $cmd ;;
  esac
  expect_true "$cmd: exit 1 (got $rc) within 20 s (took $((SECONDS - start)) s)" test "$rc" = 1 -a $((SECONDS - start)) -lt 20
  expect_err_has "/dev/infiniband/uverbs0 (mode 0600 root:root) cannot be opened read-write by nobody"
  expect_err_has "chmod 0666 /dev/infiniband/uverbs0"
  expect_err_lines 1
done
expect_true "no server is listening on 18615" not_listening 18615
chmod 0666 /dev/infiniband/uverbs0

case_ "option faults on a client with no server running: exit 2 naming the valid values"
run timeout 60 "$q" ping-pong 127.0.0.1 -x 7 --timeout 30
expect_rc 2
expect_err_has "--gid-index 7: entry 7 of rxe0 port 1 is empty; valid indices: 0 ("
expect_err_has "1 (0000:0000:0000:0000:0000:ffff:c000:0201, RoCE v2)"
expect_true "no word of a server" bash -c '! grep -qi "server" <<<"$1"' _ "$err"
run timeout 60 "$q" bw 127.0.0.1 -x 5000 --timeout 30
expect_rc 2
expect_err_has "--gid-index 5000 is out of range"
run timeout 60 "$q" ping-pong 127.0.0.1 --mtu 4096 --timeout 30
expect_rc 2
expect_err_has "--mtu 4096 is above rxe0 port 1's active MTU of 1024 bytes; valid: 256, 512, 1024"
run timeout 60 "$q" bw 127.0.0.1 -c 7 --timeout 30
expect_rc 2
expect_err_has "-c 7: this process may run on CPUs"
run timeout 60 "$q" ping-pong -x 7 --timeout 30
expect_rc 2
expect_err_has "--gid-index 7"

case_ "memlock: a non-root bw whose buffers exceed ulimit -l says how much it needs"
run timeout 60 bash -c 'ulimit -l 64; exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$1" bw 127.0.0.1 -s 1M --timeout 30' _ "$q"
expect_rc 1
expect_err_has "locked-memory limit (ulimit -l) is 64 KiB, the test buffers"
expect_err_has "need 2048 KiB"
expect_err_has "limits.conf"
# Every thread has its own buffers: one thread's 2048 KiB fit in 3000, two threads' do not.
run timeout 60 bash -c 'ulimit -l 3000; exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$1" bw 127.0.0.1 -s 1M --threads 2 --timeout 30' _ "$q"
expect_rc 1
expect_err_has "locked-memory limit (ulimit -l) is 3000 KiB"
expect_err_has "need 4096 KiB"
run timeout 60 bash -c 'ulimit -l 64; exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$1" qp create --pair' _ "$q"
expect_rc 1
expect_err_has "is 64 KiB, the 2 QPs' registered buffers (65536 bytes each, for qp post) need 128 KiB"
run timeout 60 bash -c 'ulimit -l 64; exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$1" qp create' _ "$q"
expect_rc 0
run timeout 60 "${nobody[@]}" "$q" qp destroy --all
expect_rc 0

case_ "veth0 down: ping-pong and bw stop at once on either side, naming the port state and the fix"
ip link set veth0 down
eventually 10 bash -c '"$1" --json ports | jq -e ".devices[0].ports[0].state.name == \"DOWN\""' _ "$q"
for cmd in "ping-pong" "ping-pong 127.0.0.1" "bw" "bw 127.0.0.1" "qp create --pair"; do
  start=$SECONDS
  run timeout 60 "$q" $cmd
  expect_true "$cmd: exit 1 (got $rc) within 20 s (took $((SECONDS - start)) s)" test "$rc" = 1 -a $((SECONDS - start)) -lt 20
  expect_err_has "rxe0 port 1 is DOWN (physical state DISABLED), netdev veth0 is down; fix: bring the netdev up: ip link set veth0 up"
done
run holder_qps
expect_true "a refused qp create --pair leaves nothing in the holder" test "$out" = "[]"
# A QP in RESET needs no active port: creating one still works.
run "$q" qp create
expect_rc 0
"$q" qp destroy --all >/dev/null 2>&1
ip link set veth0 up
eventually 20 bash -c '"$1" --json ports | jq -e ".devices[0].ports[0].state.name == \"ACTIVE\""' _ "$q" ||
  echo "   note: rxe0 port 1 not ACTIVE again after 20 s"
