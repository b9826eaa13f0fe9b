# Lab cases: `qpscope doctor` on a healthy lab (its self-test by hand and
# through rdma_cm, with the QP options), then on faults made for real
# (veth0 down, an MTU below --expect then raised for real, uverbs0 at 0600,
# a low memlock limit, a perftest pair whose server is SIGKILLed), and the
# stuck QP that leaves, as `qp list --stalled` shows it. Sourced by
# tests/lab/run-all.

doc_ids() { jq -r '[.findings[].id] | unique | join(" ")' <<<"$out"; }
doc_status() { jq -r --arg id "$1" '[.findings[] | select(.id == $id) | .status] | unique | join(",")' <<<"$out"; }
doc_field() { jq -r --arg id "$1" --arg f "$2" '[.findings[] | select(.id == $id) | .[$f]] | join(" | ")' <<<"$out"; }

case_ "doctor: a healthy lab, without -d and with it"
run timeout 120 "$q" doctor
expect_rc 0
expect_out_has "rxe0 port 1"
expect_out_has "0 failed"
expect_out_has ": healthy"
expect_out_has "loopback self-test on rxe0 port 1: 100 RC send round trips"
run timeout 120 "$q" --json doctor -d rxe0
expect_rc 0
for id in kernel.modules devices.present device.rdma_cm device.access device.users memlock port.state port.link port.gid \
          port.roce_gid port.mtu port.counters port.qp_counters qp.summary port.loopback; do
  expect_true "finding $id present" grep -qw -- "$id" <<<"$(doc_ids)"
done
expect_true "healthy, no failure (got $(jq -c .counts <<<"$out"))" test "$(jq -r '.healthy and .counts.fail == 0' <<<"$out")" = true
expect_true "port.mtu explains 1024 from veth0's 1500 (got $(doc_field port.mtu summary))" \
  grep -qF "active MTU 1024: netdev veth0 MTU 1500 leaves 1420 bytes after rxe's 80 header bytes; netdev MTU 2128 would give 2048" <<<"$(doc_field port.mtu summary)"
expect_true "the RoCE v2 GID with 192.0.2.1 is found" grep -qF "192.0.2.1" <<<"$(doc_field port.roce_gid summary)"
expect_true "rxe has no counters/: skipped, said so" grep -qF "not supported by this driver" <<<"$(doc_field port.counters summary)"
expect_true "rxe binds no per-QP counters: skipped, said so (got $(doc_field port.qp_counters summary))" \
  grep -qF "not supported by this driver (rxe)" <<<"$(doc_field port.qp_counters summary)"
run timeout 120 "$q" --quiet doctor
expect_rc 0
expect_true "--quiet on a healthy host prints nothing (got '$out')" test -z "$out"

. "$here/opens-lib.sh"

case_ "doctor opens each device once: its snapshot and the self-test share the context (-d rxe0, and without -d)"
run timeout 120 "${traced[@]}" "$_scratch/doctor-opens-d" "$q" --quiet doctor -d rxe0
expect_rc 0
expect_true "rxe0 opened once ($(opens_per_device "$_scratch/doctor-opens-d" | tr '\n' ' '))" \
  test "$(opens_per_device "$_scratch/doctor-opens-d")" = 1
run timeout 120 "${traced[@]}" "$_scratch/doctor-opens" "$q" --quiet doctor
expect_rc 0
expect_true "every device opened once ($(opens_per_device "$_scratch/doctor-opens" | tr '\n' ' '))" \
  test -n "$(opens_per_device "$_scratch/doctor-opens")" -a -z "$(opens_per_device "$_scratch/doctor-opens" | grep -vx 1)"

doc_seen() { jq -r --arg id "$1" --arg k "$2" '[.findings[] | select(.id == $id) | .seen[$k] // empty] | join(" | ")' <<<"$out"; }
case_ "doctor --cm: the self-test's QPs connect through rdma_cm to rxe0's address (without -d, and as nobody)"
run timeout 120 "$q" --json doctor --cm --interval 0.2
expect_rc 0
expect_true "port.loopback ok (got $(doc_status port.loopback): $(doc_field port.loopback summary))" test "$(doc_status port.loopback)" = ok
expect_true "summary: connected by rdma_cm to 192.0.2.1" grep -qF "RC send round trips connected by rdma_cm to 192.0.2.1" <<<"$(doc_field port.loopback summary)"
expect_true "seen: connection rdma_cm (192.0.2.1), the GID rdma_cm chose (got '$(doc_seen port.loopback connection)', '$(doc_seen port.loopback gid)')" \
  test "$(doc_seen port.loopback connection)/$(doc_seen port.loopback gid)" = "rdma_cm (192.0.2.1)/0000:0000:0000:0000:0000:ffff:c000:0201"
expect_true "no rdma_cm ID left behind" bash -c '[ -z "$(rdma resource show cm_id 2>/dev/null)" ]'
run timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups -- "$q" --json doctor --cm --interval 0.2
expect_true "as nobody: port.loopback ok through rdma_cm too (got $(doc_status port.loopback): $(doc_field port.loopback summary))" \
  test "$(doc_status port.loopback)" = ok
# rdma_cm's device file closed to nobody: the self-test fails pointing at
# device.rdma_cm (its fix), not at the NIC or its driver.
cm_mode=$(stat -c %a /dev/infiniband/rdma_cm)
chmod 0600 /dev/infiniband/rdma_cm
run timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups -- "$q" --json doctor --cm --interval 0.2
chmod "$cm_mode" /dev/infiniband/rdma_cm
expect_rc 1
expect_true "rdma_cm at 0600: device.rdma_cm warns, port.loopback fails (got $(doc_status device.rdma_cm), $(doc_status port.loopback))" \
  test "$(doc_status device.rdma_cm)/$(doc_status port.loopback)" = warn/fail
expect_true "port.loopback's why points at device.rdma_cm, its fix is that finding's (got: $(doc_field port.loopback why))" \
  test "$(doc_field port.loopback why | grep -c 'see device.rdma_cm')/$(doc_field port.loopback fix)" = "1/$(doc_field device.rdma_cm fix)"

case_ "doctor -d rxe0 --cm --tclass 104 --rnr-retry 5 --qp-timeout 16, and by hand --sl 3 --flow-label 7: the knobs reach the QPs, the finding lists them"
run timeout 120 "$q" --json doctor -d rxe0 --cm --tclass 104 --rnr-retry 5 --qp-timeout 16 --interval 0.2
expect_rc 0
expect_true "ok, knobs: traffic class 104, ACK timeout code 16, RNR retry 5 (got '$(doc_seen port.loopback knobs)')" \
  test "$(doc_status port.loopback)/$(doc_seen port.loopback knobs)" = "ok/traffic class 104, ACK timeout code 16, RNR retry 5"
run timeout 120 "$q" --json doctor --sl 3 --flow-label 7 --min-rnr-timer 1.28ms --interval 0.2
expect_rc 0
expect_true "by hand: ok, knobs SL 3, flow label 7, RNR timer code 14 (got '$(doc_seen port.loopback knobs)')" \
  test "$(doc_status port.loopback)/$(doc_seen port.loopback connection)/$(doc_seen port.loopback knobs)" = "ok/manual/SL 3, flow label 7, RNR timer code 14"

case_ "doctor --pkey-index 5 on rxe0's one-entry P_Key table: the self-test fails naming the table, the rest of doctor runs"
run timeout 120 "$q" --json doctor --pkey-index 5 --interval 0.2
expect_rc 1
expect_true "port.loopback failed with the table (got $(doc_field port.loopback summary))" \
  grep -qF "loopback self-test on rxe0 port 1 failed: --pkey-index 5: rxe0 port 1's P_Key table has 1 entry (0 = 0xffff); valid are 0..0" <<<"$(doc_field port.loopback summary)"
expect_true "the port itself is still ok" test "$(doc_status port.state)" = ok

case_ "doctor: usage errors exit 2 with one line"
run "$q" doctor --cm --sl 3
expect_rc 2
expect_err_has "--sl: with --cm, rdma_cm sets it on the QP from what it resolved"
run "$q" doctor --no-loopback --tclass 104
expect_rc 2
expect_err_has "exclude each other"
run "$q" doctor --expect speed=fast
expect_rc 2; expect_err_lines 1; expect_err_has "--expect speed=fast: valid are SDR"
run "$q" doctor -d rxe9
expect_rc 2; expect_err_has "unknown device 'rxe9'"
run "$q" doctor --expect loopback_gbps=5
expect_rc 2; expect_err_has "needs --loopback-bw"

case_ "doctor --expect: a link below it fails; raising the netdev MTU as the fix says makes it pass"
run timeout 120 "$q" --quiet doctor --no-loopback --expect rate=400,mtu=2048
expect_rc 1
expect_out_has "FAIL port.link rxe0 port 1: rxe0 port 1 runs"
expect_out_has "below the expected 400 Gb/s"
expect_out_has "FAIL port.mtu rxe0 port 1:"
expect_out_has "fix: ip link set veth0 mtu 2128"
expect_true "one line per failure: 2 lines (got $(grep -c . <<<"$out"))" test "$(grep -c . <<<"$out")" = 2
ip link set veth0 mtu 2128
eventually 10 bash -c '"$1" --json ports | jq -e ".devices[0].ports[0].active_mtu.bytes == 2048"' _ "$q"
run timeout 120 "$q" --quiet doctor --no-loopback --expect mtu=2048
expect_rc 0
expect_true "nothing printed once the MTU is raised (got '$out')" test -z "$out"
ip link set veth0 mtu 1500
eventually 10 bash -c '"$1" --json ports | jq -e ".devices[0].ports[0].active_mtu.bytes == 1024"' _ "$q"

case_ "doctor: veth0 down fails the port with the fix, and skips the self-test"
ip link set veth0 down
eventually 10 bash -c '"$1" --json ports | jq -e ".devices[0].ports[0].state.name == \"DOWN\""' _ "$q"
run timeout 120 "$q" --json doctor
expect_rc 1
expect_true "port.state fail" test "$(doc_status port.state)" = fail
expect_true "the fix brings veth0 up" grep -qF "ip link set veth0 up" <<<"$(doc_field port.state fix)"
expect_true "loopback skipped" test "$(doc_status port.loopback)" = skipped
run timeout 120 "$q" --quiet doctor
expect_rc 1
expect_out_has "FAIL port.state rxe0 port 1: rxe0 port 1 is DOWN (physical state DISABLED), netdev veth0 is down; fix: bring the netdev up: ip link set veth0 up"
ip link set veth0 up
eventually 20 bash -c '"$1" --json ports | jq -e ".devices[0].ports[0].state.name == \"ACTIVE\""' _ "$q"

case_ "doctor as a user who cannot open uverbs0, or whose memlock limit is low"
chmod 0600 /dev/infiniband/uverbs0
run timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups -- "$q" --quiet doctor
expect_rc 1
expect_out_has "FAIL device.access rxe0: /dev/infiniband/uverbs0 (mode 0600 root:root) cannot be opened read-write by nobody"
expect_out_has "chmod 0666 /dev/infiniband/uverbs0"
chmod 0666 /dev/infiniband/uverbs0
run timeout 120 bash -c 'ulimit -l 64; exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$1" --json doctor --no-loopback' _ "$q"
expect_rc 1
expect_true "memlock fails (got $(doc_status memlock))" test "$(doc_status memlock)" = fail
expect_true "it names 64 KiB and limits.conf" bash -c 'grep -qF "is 64 KiB" <<<"$1" && grep -qF "limits.conf" <<<"$2"' _ \
  "$(doc_field memlock summary)" "$(doc_field memlock fix)"
expect_true "not root: device.users says only this user's processes are visible" \
  grep -qF "run as root to see all" <<<"$(doc_field device.users summary)"

case_ "a perftest pair whose server is SIGKILLed: the survivor's QP is stuck, with its owner"
timeout 90 ib_write_bw -d rxe0 -x 1 -D 60 >/dev/null 2>&1 &
pt_server=$!
eventually 30 listening 18515 || bad "ib_write_bw's server did not listen on 18515 within 30 s"
timeout 90 ib_write_bw -d rxe0 -x 1 -D 60 127.0.0.1 >/dev/null 2>&1 &
pt_client=$!
eventually 30 bash -c '[ "$(rdma resource show qp | grep -c ib_write_bw)" = 2 ]'
sleep 2
pkill -9 -P "$pt_server"
eventually 10 bash -c '[ "$(rdma resource show qp | grep -c ib_write_bw)" = 1 ]'
survivor=$(pgrep -P "$pt_client" ib_write_bw)
# The survivor's PSNs move on for a moment after the kill (its send queue
# fills); once full, they stop.
for _ in 1 2 3 4 5 6 7 8; do
  run timeout 60 "$q" qp list --stalled 2
  grep -q STUCK <<<"$out" && break
done
expect_rc 0
expect_out_has "1 QP(s) without progress in 2 s, or in ERR/SQE"
expect_out_has "pid $survivor (ib_write_bw): STUCK"
expect_out_has "is not on rxe0: if its peer ran on this host, it is gone"
expect_out_has "The kernel does not end a QP whose peer is gone"
expect_out_has "port error counters meanwhile"
expect_out_has "rxe0 port 1 : completer_retry_err rose by"
run timeout 60 "$q" --json qp list --stalled 2
expect_true "JSON: one verdict, stuck, dest_missing and no_progress" \
  test "$(jq -c '[.verdicts[] | [.stuck, .dest_missing, .no_progress]]' <<<"$out")" = "[[true,true,true]]"
run timeout 120 "$q" --json doctor --no-loopback --interval 2
expect_rc 0
expect_true "qp.stuck warns with the owner (got $(doc_field qp.stuck summary))" \
  grep -qF "of pid $survivor (ib_write_bw) is stuck: destination QP" <<<"$(doc_field qp.stuck summary)"
expect_true "the retries of the survivor show in the counters (got $(doc_field port.counters summary))" \
  grep -qF "completer_retry_err rose by" <<<"$(doc_field port.counters summary)"
run timeout 120 "$q" --quiet doctor --no-loopback --strict --interval 2
expect_rc 1
expect_out_has "WARN qp.stuck rxe0 port 1: QP"
kill -9 "$survivor" 2>/dev/null
wait "$pt_client" "$pt_server" 2>/dev/null
eventually 10 bash -c '! rdma resource show qp | grep -q ib_write_bw'

# The survivor's CM state is what is tested here, not perftest: cm_pair's
# pair (tests/lab/cm-pair-lib.sh) holds one connection open, idle (an idle
# QP whose destination is gone is stuck as well: its PSNs get no further).
case_ "an rdma_cm pair (cm_pair) whose server is SIGKILLed: the survivor's notes give its CM state"
. "$here/cm-pair-lib.sh"
cmp_start doc_srv listen 192.0.2.1 18641
if cmp_expect doc_srv listening && cmp_start doc_cli connect 192.0.2.1 18641 &&
  cmp_expect doc_cli "connected 1" && cmp_expect doc_srv "accepted 1"; then
  kill -9 "$doc_srv_pid"
  # The kernel tears the dead server's connection down: the client hears it.
  cmp_expect doc_cli "disconnected 1" || bad "the client did not hear of the disconnect: $cmp_why"
  run timeout 60 "$q" qp list --stalled 2
  expect_out_has "pid $doc_cli_pid (cm_pair): STUCK"
  expect_out_has "rdma_cm: DISCONNECT, 192.0.2.1:"
  expect_out_has "-> 192.0.2.1:18641 (the connection was torn down: the peer disconnected, or its process died)"
else
  bad "cm_pair's pair did not connect: $cmp_why"
fi
cmp_go doc_cli doc_srv
expect_true "no QP of cm_pair left" bash -c '! rdma resource show qp | grep -q cm_pair'

# SIGINT and SIGTERM end every command that waits with exit 4 and what it
# had (issue 39): doctor's interval and `qp list --stalled` stop sampling,
# judge what they read over the time it spans, and print it. The signal
# comes once the command caught it (run_interrupted), wherever it then is:
# before the interval it ends the interval at once, in it it cuts it short.
case_ "SIGINT in doctor's --interval 30 (no -d): the findings so far, exit 4, no self-test"
run_interrupted INT "$q" --json doctor --interval 30
expect_rc 4
expect_true "interrupted, over less than the 30 s asked (got $(jq -c '[.interrupted, .interval_s]' <<<"$out" 2>&1))" \
  jq_true '.interrupted == true and .interval_s < 30' <<<"$out"
expect_true "the device's findings are there, the loopback is not" \
  jq_true '([.findings[] | select(.device == "rxe0")] | length > 0) and ([.findings[] | select(.id == "port.loopback")] | length == 0)' <<<"$out"
run_interrupted TERM "$q" doctor -d rxe0 --interval 30
expect_rc 4
expect_out_has "interrupted after"

case_ "SIGTERM in qp list --stalled 30 (-d rxe0, and without): what was read, exit 4"
run_interrupted TERM "$q" --json qp list -d rxe0 --stalled 30
expect_rc 4
expect_true "interrupted, stalled_s under 30 (got $(jq -c '[.interrupted, .stalled_s]' <<<"$out" 2>&1))" \
  jq_true '.interrupted == true and .stalled_s < 30 and (.qps | type == "array")' <<<"$out"
run_interrupted INT "$q" qp list --stalled 30
expect_rc 4
expect_out_has "interrupted after"

# cm list has no wait of its own: one netlink dump. strace holds its
# request 4 s (the dump as slow as a loaded kernel's), and SIGTERM comes
# while it is held (the tracee in its tracing stop; --seccomp-bpf stops it at
# sendto only). Whichever way the command then ends (the dump done, or a
# call that returned EINTR), it exits 4 and says it was interrupted.
case_ "SIGTERM in cm list (no -d, -d rxe0, and as nobody) while its netlink dump is held: exit 4, named as interrupted"
in_tracing_stop() { grep -q '^State:.*tracing stop' "/proc/$1/status" 2>/dev/null; }
for dev in "" "-d rxe0" "as nobody"; do
  as=()
  if [ "$dev" = "as nobody" ]; then as=(setpriv --reuid 65534 --regid 65534 --clear-groups); fi
  # shellcheck disable=SC2086 # $dev: no word or two
  "${as[@]}" strace -f --seccomp-bpf -o /dev/null -e trace=sendto -e inject=sendto:delay_enter=4000000:when=1 \
    "$q" --json cm list ${dev/as nobody/} >"$_scratch/out" 2>"$_scratch/err" &
  tracer=$!
  eventually 30 pgrep -P "$tracer" -x qpscope >/dev/null || bad "cm list did not start under strace within 30 s"
  lister=$(pgrep -P "$tracer" -x qpscope)
  eventually 30 in_tracing_stop "$lister" || bad "cm list's sendto was not held within 30 s"
  kill -TERM "$lister"
  eventually 60 _not_running "$tracer" || kill -9 "$tracer" "$lister"
  wait "$tracer"; rc=$?
  _read_file out "$_scratch/out"; _read_file err "$_scratch/err"
  expect_true "cm list ${dev:-without -d}: exit 4 (got $rc)" test "$rc" = 4
  expect_true "cm list ${dev:-without -d}: its list and 'interrupted by SIGTERM' on stderr, or an error of kind interrupted" \
    bash -c 'grep -q "interrupted by SIGTERM (the output above is complete)" <<<"$2" && jq -e ".cm_ids | type == \"array\"" <<<"$1" >/dev/null ||
      jq -e ".error.kind == \"interrupted\"" <<<"$1" >/dev/null' _ "$out" "$err"
done
