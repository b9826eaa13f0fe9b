# Lab cases: how production connects and marks its QPs. ping-pong and bw
# connected through rdma_cm (--cm), as NVMe-oF, iSER and MPI's rdmacm
# connect: on rxe0 to itself (192.0.2.1), with and without -d; every
# rdma_cm ID visible to `rdma res show cm_id` while they run; rdma_cm's
# failures named (an address no device owns, a port nobody listens on, a
# server without --cm). The QoS and transport knobs (--pkey-index checked
# before the network, --sl, --rnr-retry ... adopted by the server), the
# 8-byte atomics (fetch-and-add, compare-and-swap: the server's counter
# checked), and across the two-host wire (when this boot has host B): the
# traffic class on the wire in both modes, UDP 4791 dropped.
# Each --json document it reads validates against its schema in docs/schema
# (the documents of --cm, the atomics and cm list are checked here, not in
# 80-schemas). Sourced by tests/lab/run-all with $q set.

. "$here/schema-lib.sh"
jqo() { jq -r "$1" <<<"$out"; }
cm_server_log=$(mktemp)
# cm_serve ARGS: a `qpscope ARGS` server in the background ($cm_server).
cm_serve() {
  "$q" "$@" >"$cm_server_log" 2>&1 &
  cm_server=$!
}
# cm_header_ok WHAT JSON: the header says rdma_cm connected it, with its
# events in order and their statuses 0, rxe0 and the GID rdma_cm chose.
cm_header_ok() {
  expect_true "$1: connection rdma_cm, ADDR_RESOLVED/ROUTE_RESOLVED/ESTABLISHED (or CONNECT_REQUEST/ESTABLISHED) with status 0, rxe0, the GID rdma_cm chose" python3 -c '
import json, sys
t = json.loads(sys.argv[1])["test"]
assert t["connection"] == "rdma_cm", t["connection"]
assert t["device"] == "rxe0", t["device"]
ev = [e["event"] for e in t["cm_events"]]
want = ["ADDR_RESOLVED", "ROUTE_RESOLVED", "ESTABLISHED"] if t["role"] == "client" else ["CONNECT_REQUEST", "ESTABLISHED"]
assert ev == want, ev
assert all(e["status"] == "0" for e in t["cm_events"]), t["cm_events"]
assert "rdma_cm" in t["gid_choice"] and "192.0.2.1" in t["gid_choice"], t["gid_choice"]
assert t["cm_local"].startswith("192.0.2.1:") and t["cm_remote"].startswith("192.0.2.1:"), t
' "$2"
}

case_ "ping-pong --cm (no -d): rdma_cm picks rxe0 for 192.0.2.1, both sides measure, the header names its events"
cm_serve --json ping-pong --cm --timeout 20
run timeout 120 "$q" --json ping-pong --cm 192.0.2.1 -n 300 -w 20 --timeout 20
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
cm_header_ok "client" "$out"
cm_header_ok "server" "$(cat "$cm_server_log")"
expect_valid ping-pong
expect_valid_file ping-pong "$cm_server_log"
expect_true "300 samples each side" test "$(jqo '.client[0].samples'),$(jqo '.server[0].samples')" = "300,300"

case_ "ping-pong --cm -d rxe0 --op write, the server -d rxe0 too: the same, as text"
cm_serve ping-pong --cm -d rxe0 --timeout 20
run timeout 120 "$q" ping-pong --cm 192.0.2.1 -d rxe0 --op write -n 200 --timeout 20
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
expect_out_has "connection"
expect_out_has "rdma_cm"
expect_out_has "ESTABLISHED"

case_ "bw --cm --threads 2 -q 4 -D 10: 8 QPs connected by rdma_cm; rdma res show cm_id lists them while they run"
cm_serve --json bw --cm --timeout 30
eventually 30 listening 18615 || bad "the server did not listen on 18615 within 30 s"
"$q" --json bw --cm 192.0.2.1 --threads 2 -q 4 -D 10 -s 4096 --timeout 30 >"$cm_server_log.client" 2>&1 &
cm_client=$!
# While the sizes run: every ID of both processes, as the kernel lists them.
# The two views are read one after the other, so an ID may move between
# them (a server's ID is CONNECT from the request on, and gets its QPN at
# the accept: the rehearsal beside the hog read it both ways). The reads
# go on until a pair agrees; the checks below then compare that pair.
cm_ids="" reads=0
while kill -0 "$cm_client" 2>/dev/null; do
  sleep 0.5
  reads=$((reads + 1))
  # qpscope's view first: a sanitised start on a loaded host is the slow
  # one; the kernel's right after it.
  ours=$("$q" --json cm list 2>/dev/null)
  cm_ids=$(rdma -j res show cm_id 2>/dev/null)
  n=$(jq '[.[] | select(.comm == "qpscope" and .state == "CONNECT" and .lqpn)] | length' <<<"$cm_ids" 2>/dev/null || echo 0)
  m=$(jq '[.cm_ids[] | select(.state.name == "CONNECT" and .qpn)] | length' <<<"$ours" 2>/dev/null || echo 0)
  k=$(jq -c '[.[] | [.state, ."src-addr", ."dst-addr", .lqpn, .pid]] | unique' <<<"$cm_ids" 2>/dev/null)
  o=$(jq -c '[.cm_ids[] | [.state.name, .local, .remote, (if .qpn then .qpn.raw else null end), .pid]] | unique' <<<"$ours" 2>/dev/null)
  [ "${n:-0}" -ge 16 ] && [ "${m:-0}" -ge 16 ] && [ -n "$k" ] && [ "$k" = "$o" ] && break
done
echo "    (the views agreed at read $reads)"
wait "$cm_client"; rc=$?
wait "$cm_server"; server_rc=$?
out=$(cat "$cm_server_log.client")
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
expect_true "rdma res show cm_id: 16 connected IDs (8 QPs a side) and the server's listener on 18616, all qpscope's" python3 -c '
import json, sys
ids = [i for i in json.loads(sys.argv[1]) if i.get("comm") == "qpscope"]
connected = [i for i in ids if i["state"] == "CONNECT"]
listening = [i for i in ids if i["state"] == "LISTEN"]
assert len(connected) == 16, ids
assert any(i.get("src-addr", "").endswith(":18616") for i in listening), listening
assert all(i.get("lqpn") for i in connected), connected
' "$cm_ids"
expect_true "qpscope cm list, read at the same moment, shows the same set: each ID's state, addresses, QPN and pid" python3 -c '
import json, sys
kernel = json.loads(sys.argv[1]); ours = json.loads(sys.argv[2])["cm_ids"]
def key_k(i): return (i["state"], i.get("src-addr"), i.get("dst-addr"), i.get("lqpn"), i["pid"])
def key_o(i): return (i["state"]["name"], i["local"], i["remote"], i["qpn"]["raw"] if i["qpn"] else None, i["pid"])
k = set(map(key_k, kernel)); o = set(map(key_o, ours))
assert len(k) >= 17 and k == o, ("rdma only", sorted(map(str, k - o)), "cm list only", sorted(map(str, o - k)))
' "$cm_ids" "$ours"
cm_header_ok "bw client" "$out"
expect_valid bw
expect_valid_file bw "$cm_server_log"
printf '%s\n' "$ours" >"$sch_tmp/cm-list.json"
expect_valid_file cm-list "$sch_tmp/cm-list.json"
expect_true "the client's total over 8 QPs moved data" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["test"]["qps"] == 4 and d["test"]["threads"] == 2, d["test"]
r = d["client_posts"][0]
assert r["bytes_per_s"] > 0 and r["verified"] == "ok: 4096 bytes on 8 QPs", r
' "$out"
rm -f "$cm_server_log.client"

case_ "ping-pong --cm as a user who is not root (nobody), both sides: rdma_cm's device file and the test run as for root"
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
"${nobody[@]}" "$q" --json ping-pong --cm --timeout 20 >"$cm_server_log" 2>&1 &
cm_server=$!
run timeout 60 "${nobody[@]}" "$q" --json ping-pong --cm 192.0.2.1 -n 200 --timeout 20
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc; server said: $(head -c 300 "$cm_server_log"))" test "$rc/$server_rc" = "0/0"
cm_header_ok "nobody's client" "$out"

case_ "ping-pong --cm to an address no device owns (192.0.2.77, nobody there): ADDR_ERROR named within 3 s, no TCP step"
start=$(date +%s%N)
run timeout 60 "$q" ping-pong --cm 192.0.2.77 --timeout 5
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_rc 1
expect_err_has "rdma_cm: resolving the address to 192.0.2.77:18616: ADDR_ERROR after"
expect_err_has "status -110 (ETIMEDOUT)"
after=$(sed -n 's/.*ADDR_ERROR after \([0-9]*\) ms.*/\1/p' <<<"$err")
expect_true "rdma_cm named it ${after:-?} ms after resolving began (under 3 s), the process ended in $ms ms (no TCP wait: under 15 s even on a loaded emulated host)" \
  test "${after:-9999}" -lt 3000 -a "$ms" -lt 15000

case_ "ping-pong --cm --cm-port 4420 while the server listens on 18616: the client names the reject (nobody listens there)"
cm_serve ping-pong --cm --timeout 6
run timeout 60 "$q" ping-pong --cm 192.0.2.1 --cm-port 4420 --timeout 6
wait "$cm_server"; server_rc=$?
expect_rc 1
expect_err_has "REJECTED"
expect_err_has "INVALID_SERVICE_ID"
expect_true "the server stops waiting when the client ends, and says so (exit 1, got $server_rc)" test "$server_rc" = 1
expect_true "the server's reason: the peer ended while it waited for the connect request" grep -q "peer ended its side.*connect request" "$cm_server_log"

case_ "a --cm client against a server without --cm: both name the connection mode, nobody hangs"
cm_serve ping-pong --timeout 10
run timeout 60 "$q" ping-pong --cm 192.0.2.1 --timeout 10
wait "$cm_server"; server_rc=$?
expect_rc 2
expect_err_has "connection"
expect_err_has "connection: local rdma_cm, remote manual (give both sides --cm, or neither)"
expect_true "server exit 2 (got $server_rc)" test "$server_rc" = 2
expect_true "the server names it too" grep -q "connection: local manual, remote rdma_cm (give both sides --cm, or neither)" "$cm_server_log"

case_ "--cm refuses what rdma_cm decides itself, before any network step: -x, -m, --transport ud"
run "$q" ping-pong --cm 192.0.2.1 -x 1
expect_rc 2
expect_err_has "rdma_cm picks the GID"
run "$q" ping-pong --cm 192.0.2.1 -m 1024
expect_rc 2
expect_err_has "path MTU from the route"
run "$q" bw --cm 192.0.2.1 --transport ud
expect_rc 2
expect_err_has "--cm connects RC QPs"

case_ "--bind by hand: the server listens on that address only, the QPs' GID is the one holding it (no -d), -x must agree"
cm_serve --json ping-pong --bind 192.0.2.1 --timeout 20
run timeout 60 "$q" ping-pong 127.0.0.1 --timeout 2   # the server listens on 192.0.2.1 only
expect_rc 3
expect_err_has "could not connect to 127.0.0.1:18615"
run timeout 60 "$q" --json ping-pong 192.0.2.1 --bind 192.0.2.1 -n 100 --timeout 20
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
# gid_of GID: rxe0 port 1's RoCE v2 entry holding GID (sysfs's form), "" if
# none. (One grep over the table: a process per entry costs minutes here.)
gid_of() {
  local f
  for f in $(grep -lx "$1" /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null); do
    [ "$(cat "/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/${f##*/}" 2>/dev/null)" = "RoCE v2" ] &&
      { echo "${f##*/}"; return; }
  done
}
gid192=$(gid_of 0000:0000:0000:0000:0000:ffff:c000:0201)
expect_true "both sides on GID index $gid192 (192.0.2.1's RoCE v2 entry; got $(jqo .test.gid_index), $(jq -r .test.gid_index "$cm_server_log"))" \
  test "$(jqo .test.gid_index),$(jq -r .test.gid_index "$cm_server_log")" = "$gid192,$gid192"
expect_true "the server's peer is the client's bound source" test "$(jq -r .test.peer "$cm_server_log" | cut -d: -f1)" = 192.0.2.1
run timeout 30 "$q" ping-pong 192.0.2.1 --bind 127.0.0.1 --timeout 10
expect_rc 2
expect_err_has "--bind 127.0.0.1: no GID of rxe0 port 1 holds that address"
# A second address on rxe0's netdev (veth0 on one host, the wire's NIC on
# two) gives rxe0 a second IPv4 GID: -x naming it and --bind the first
# disagree (both reach the destination).
ndev=$(cat "/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/$gid192")
ip addr add 192.0.2.11/24 dev "$ndev"
eventually 10 bash -c "grep -qx 0000:0000:0000:0000:0000:ffff:c000:020b /sys/class/infiniband/rxe0/ports/1/gids/*" ||
  bad "rxe0 has no GID for 192.0.2.11 10 s after the address was added"
gid11=$(gid_of 0000:0000:0000:0000:0000:ffff:c000:020b)
run timeout 30 "$q" ping-pong 192.0.2.1 -d rxe0 --bind 192.0.2.1 -x "${gid11:-9}" --timeout 10
ip addr del 192.0.2.11/24 dev "$ndev"
expect_rc 2
expect_err_has "--bind 192.0.2.1 is GID index $gid192 of rxe0 port 1, and --gid-index ${gid11:-9} was given"

# No server listens: a client that reached its TCP step would wait there for
# its whole --timeout (60 s). Ending in under half of it says the refusal
# came first, whatever a loaded host's start-up costs (3.4 s under the hog).
case_ "--pkey-index 5 on rxe0's one-entry P_Key table: refused before any network step (no server anywhere), naming the table"
for dev in "" "-d rxe0"; do
  start=$(date +%s%N)
  # shellcheck disable=SC2086 # no -d, then -d rxe0
  run timeout 120 "$q" ping-pong 192.0.2.1 $dev --pkey-index 5 --timeout 60
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  expect_rc 2
  expect_err_has "--pkey-index 5: rxe0 port 1's P_Key table has 1 entry (0 = 0xffff); valid are 0..0"
  expect_true "${dev:-no -d}: refused before the TCP step: well under the 60 s a wait for a server takes (took $ms ms)" \
    test "$ms" -lt 30000
done

case_ "--sl 3 --flow-label 5 --rnr-retry 5 --min-rnr-timer 1.28ms, by hand: the server adopts them, both headers show them"
cm_serve --json ping-pong --timeout 20
run timeout 60 "$q" --json ping-pong 192.0.2.1 --sl 3 --flow-label 5 --rnr-retry 5 --min-rnr-timer 1.28ms -n 100 --timeout 20
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
for side in "$out" "$(cat "$cm_server_log")"; do
  expect_true "$(jq -r .test.role <<<"$side"): sl 3, flow label 5, P_Key index 0, RNR retry 5, RNR timer code 14 (1.28 ms)" test \
    "$(jq -c '[.test.sl, .test.flow_label, .test.pkey_index, .test.rnr_retry.raw, .test.min_rnr_timer.raw, .test.min_rnr_timer.ms, .test.connection]' <<<"$side")" \
    = '[3,5,0,5,14,1.28,"manual"]'
done

case_ "--cm with --rnr-retry 5 --min-rnr-timer 14 --qp-timeout 16 --retry-cnt 3: rdma_cm's connection carries them, the headers show them"
cm_serve --json ping-pong --cm --timeout 20
run timeout 60 "$q" --json ping-pong --cm 192.0.2.1 --rnr-retry 5 --min-rnr-timer 14 --qp-timeout 16 --retry-cnt 3 -n 100 --timeout 20
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
for side in "$out" "$(cat "$cm_server_log")"; do
  expect_true "$(jq -r .test.role <<<"$side"): RNR retry 5, RNR timer 14, ACK timeout 16, retry count 3, rdma_cm" test \
    "$(jq -c '[.test.rnr_retry.raw, .test.min_rnr_timer.raw, .test.ack_timeout.raw, .test.retry_cnt.raw, .test.connection]' <<<"$side")" \
    = '[5,14,16,3,"rdma_cm"]'
done
run "$q" ping-pong --cm 192.0.2.1 --sl 3
expect_rc 2
expect_err_has "--sl: with --cm, rdma_cm sets it on the QP from what it resolved"

case_ "ping-pong --op fadd -n 1000 (no -d; -s left out: 8 bytes): the server's counter ends at 1000 + the warm-up, exit 0"
cm_serve --json ping-pong --timeout 20
run timeout 60 "$q" --json ping-pong 192.0.2.1 --op fadd -n 1000 -w 0 --timeout 20
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
expect_true "atomic_check: counter 1000, expected 1000, ok; round trip (one_way false), 1000 samples of 8 bytes" \
  jq_true '[.atomic_check, .test.one_way, .client[0].samples, .client[0].size_bytes]
         == [[{"size_bytes":8,"counter":1000,"expected":1000,"ok":true}],false,1000,8]' <<<"$out"
expect_valid ping-pong
expect_valid_file ping-pong "$cm_server_log"

case_ "ping-pong --op cas --cm -d rxe0 --threads 2 -n 300 -w 20: each pair's CAS i -> i + 1 all succeed: the counters sum to 640"
cm_serve --json ping-pong --cm -d rxe0 --timeout 20
run timeout 60 "$q" --json ping-pong --cm 192.0.2.1 -d rxe0 --op cas --threads 2 --cpus 0,0 -n 300 -w 20 --timeout 20
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
expect_true "atomic_check: 2 x 320" jq_true '.atomic_check == [{"size_bytes":8,"counter":640,"expected":640,"ok":true}]' <<<"$out"
expect_valid ping-pong
expect_valid_file ping-pong "$cm_server_log"
run "$q" ping-pong 192.0.2.1 --op fadd -s 64
expect_rc 2
expect_err_has "--op fadd works on 8-byte operands: -s 64 is not possible"
run "$q" ping-pong 192.0.2.1 --op cas --transport uc
expect_rc 2
expect_err_has "--op cas is not possible on --transport uc"

case_ "bw --op fadd -q 2 (-n), then -D 2, then --op cas --cm: the poster checks the target's counters"
for args in "--op fadd -q 2 -n 2000" "--op fadd -D 2" "--op cas -q 3 -n 500 --cm"; do
  # shellcheck disable=SC2086 # the server takes --cm when the client does
  cm_serve --json bw $([[ $args == *--cm* ]] && echo --cm) --timeout 20
  # shellcheck disable=SC2086
  run timeout 60 "$q" --json bw 192.0.2.1 $args --timeout 20
  wait "$cm_server"; server_rc=$?
  expect_true "$args: client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
  expect_true "$args: verified ok against the server's counters" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); args = sys.argv[2]
r = d["client_posts"][0]
assert r["size_bytes"] == 8 and r["messages"] > 0, r
v = r["verified"]
assert v.startswith("ok: the peer"), v
if "cas" in args:
    assert "sum to 3: one compare-and-swap of 0 -> 1 won on each of 3 QPs" in v, v
else:
    assert "fetch-and-adds completed here" in v, v
assert d["test"]["verify_failed"] is False, d["test"]["verify_failed"]
' "$out" "$args"
  expect_valid bw
  expect_valid_file bw "$cm_server_log"
done

sch_done
if ! command -v on-b >/dev/null; then
  case_ "rdma_cm across the two-host wire"
  skip "no host B (this boot is not lab/qpscope-lab --hosts 2)"
  return 0
fi

# b_capture: tcpdump on B's eth0 takes the next 40 RoCE packets into
# /tmp/cm-dump; returns once it captures (it says "listening on"), not
# after a sleep. b_captured: returns once it has them and has ended.
b_capture() {
  on-b sh -c "rm -f /tmp/cm-dump; timeout 25 tcpdump -Z root -i eth0 -n -v -c 40 udp port 4791 >/tmp/cm-dump 2>&1 &"
  on-b timeout 30 sh -c 'until grep -q "listening on" /tmp/cm-dump 2>/dev/null; do sleep 0.1; done' ||
    bad "tcpdump on B did not start capturing within 30 s"
}
b_captured() { on-b timeout 30 sh -c 'while pgrep -x tcpdump >/dev/null; do sleep 0.1; done'; }

case_ "ping-pong --cm --tclass 104 across the wire: rdma_cm's TOS option puts DSCP 26 on the RoCE packets B receives"
b_capture
on-b timeout 60 "$q" --json ping-pong --cm --timeout 15 >"$cm_server_log" 2>&1 &
cm_server=$!
b_listening
run timeout 60 "$q" --json ping-pong --cm 192.0.2.2 --tclass 104 -n 200 --timeout 15
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
expect_true "the header: traffic class 104 on the client's QP and the server's (adopted)" test \
  "$(jqo '.test.traffic_class'),$(jq -r '.test.traffic_class' "$cm_server_log")" = "104,104"
b_captured
dump=$(on-b cat /tmp/cm-dump)
expect_true "tcpdump on B: RoCE packets from 192.0.2.1 with tos 0x68 (DSCP 26)" grep -q "tos 0x68" <<<"$dump"

case_ "the same by hand (no --cm): the QP's traffic class puts DSCP 26 on the wire too"
b_capture
on-b timeout 60 "$q" ping-pong --timeout 15 >"$cm_server_log" 2>&1 &
cm_server=$!
b_listening
run timeout 60 "$q" ping-pong 192.0.2.2 --dscp 26 -n 200 --timeout 15
wait "$cm_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
b_captured
dump=$(on-b cat /tmp/cm-dump)
expect_true "tcpdump on B: tos 0x68" grep -q "tos 0x68" <<<"$dump"

case_ "UDP 4791 dropped at B: the --cm client names its unanswered connect request, the server its missing one"
on-b sh -c 'tc qdisc add dev eth0 clsact && tc filter add dev eth0 ingress protocol ip u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop'
on-b timeout 60 "$q" ping-pong --cm --timeout 6 >"$cm_server_log" 2>&1 &
cm_server=$!
b_listening
run timeout 60 "$q" ping-pong --cm 192.0.2.2 --timeout 6
wait "$cm_server"; server_rc=$?
on-b sh -c 'tc qdisc del dev eth0 clsact'
expect_true "client exit 3 or 1 (got $rc)" test "$rc" = 3 -o "$rc" = 1
expect_err_has "UDP 4791"
expect_true "server exit 1 (the client ended first) or 3 (its own wait ran out) (got $server_rc)" test "$server_rc" = 1 -o "$server_rc" = 3
expect_true "the server names UDP 4791 too" grep -q "UDP 4791" "$cm_server_log"
rm -f "$cm_server_log"
