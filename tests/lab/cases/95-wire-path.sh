# Lab cases across the two-host wire (lab/qpscope-lab --hosts 2): host A
# (192.0.2.1, this shell) and host B (192.0.2.2, reached with on-b), rxe0 on
# each one's eth0, faults made for real with tc and ip: `qpscope path` on a
# healthy link, through a B that re-marks DSCP, with UDP 4791 dropped (path,
# ping-pong, bw, and a QP that runs out of retries), with MTUs that differ,
# with loss either way (path, the RC tail, doctor's counters), and with B's
# link down mid-run. In a one-host boot there is no B: skipped by name.
if ! command -v on-b >/dev/null; then
  case_ "the two-host wire"
  skip "no host B (this boot is not lab/qpscope-lab --hosts 2)"
  return 0
fi

jqo() { jq -r "$1" <<<"$out"; }
wire_server_log=$(mktemp)
# path_serve ARGS: `qpscope ARGS` (a path or ping-pong server) on B in the
# background, its stdout and stderr into $wire_server_log when it ends
# ($wire_server: the pid of on-b; wait for it).
path_serve() {
  on-b timeout 120 "$q" "$@" >"$wire_server_log" 2>&1 &
  wire_server=$!
  b_listening
}
# (b_listening, tests/lib.sh: B's server listens on TCP 18615.)
# a_retries: A's QP resends after an ACK timeout (rxe's completer_retry_err).
a_retries() { cat /sys/class/infiniband/rxe0/ports/1/hw_counters/completer_retry_err; }
# Small runs: the figures are checked for what they say, not their size.
small=(--probes 5 --pings 10 --timeout 10)
# wire_reset: B's and A's eth0 as the lab made them, whatever a case left.
wire_reset() {
  on-b sh -c 'tc qdisc del dev eth0 clsact 2>/dev/null; tc qdisc del dev eth0 root 2>/dev/null; ip link set eth0 mtu 1500
    nft delete table inet qpscope_drop 2>/dev/null; true'
  tc qdisc del dev eth0 root 2>/dev/null
  ip link set eth0 mtu 1500
  nft delete table inet qpscope_drop 2>/dev/null
  true
}
# drop_roce_output: this host's output hook drops RoCE v2 (UDP 4791): rxe's
# packets are refused on their way out (ip_local_out fails, rxe counts
# send_err and tries again), the QPs' sends never complete.
drop_roce_output='nft add table inet qpscope_drop && nft add chain inet qpscope_drop out "{ type filter hook output priority 0; }" && nft add rule inet qpscope_drop out udp dport 4791 drop'


case_ "path, defaults (no -d, no -x), both NICs at MTU 4200: exit 0 on both sides, 4096 carried both ways, no loss"
ip link set eth0 mtu 4200 && on-b ip link set eth0 mtu 4200
path_serve --json path
run timeout 120 "$q" --json path 192.0.2.2 "${small[@]}" --burst 50
wait "$wire_server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = 0/0
expect_true "both active MTUs 4096" test "$(jqo '"\(.here.mtu_bytes) \(.there.mtu_bytes)"')" = "4096 4096"
expect_true "every size 256..4096 arrived whole, both ways" \
  test "$(jqo '[.directions[].sizes[] | select(.arrived == .sent) | .bytes] | join(",")')" = \
  "256,512,1024,2048,4096,256,512,1024,2048,4096"
expect_true "the bursts arrived whole both ways" test "$(jqo '[.directions[] | "\(.burst_sent)/\(.burst_arrived)"] | join(" ")')" = "50/50 50/50"
expect_true "a round trip measured (10 of 10)" test "$(jqo '"\(.round_trip.answered) \(.round_trip.p50_us > 0)"')" = "10 true"
expect_true "every path finding ok: roce, mtu, loss, traffic_class twice, port_mtu, ack_timeout" \
  test "$(jqo '[.findings[] | select(.status == "ok") | .id] | join(",")')" = \
  "path.roce,path.mtu,path.loss,path.traffic_class,path.roce,path.mtu,path.loss,path.traffic_class,path.port_mtu,path.ack_timeout"
expect_true "the server's report is healthy too, seen from B" \
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["healthy"] and d["role"] == "server" and d["directions"][0]["name"] == "here -> 192.0.2.1", d["directions"][0]["name"]' "$wire_server_log"

case_ "path -d rxe0 -x 1 --tclass 104 --expect: DSCP 26 arrives as sent both ways, the expectations met"
path_serve path -d rxe0 -x 1
run timeout 120 "$q" path 192.0.2.2 -d rxe0 -x 1 --tclass 104 "${small[@]}" --burst 50 --expect 'mtu>=4096,loss<=0,rtt<=1s'
wait "$wire_server"
expect_rc 0
expect_out_has "here -> 192.0.2.2: DSCP 26 (AF31), ECN Not-ECT arrived as sent"
expect_out_has "192.0.2.2 -> here: DSCP 26 (AF31), ECN Not-ECT arrived as sent"
expect_out_has "mtu>=4096: 4096 bytes arrive whole"
expect_out_has "healthy: RoCE packets cross both ways"

case_ "B re-marks DSCP to 0 on ingress (tc pedit): path --tclass 104 names the re-marking, one way only"
if on-b sh -c 'tc qdisc add dev eth0 clsact && tc filter add dev eth0 ingress protocol ip u32 match ip protocol 17 0xff match ip dport 4791 0xffff action pedit ex munge ip dsfield set 0 retain 0xfc pipe action csum ip'; then
  path_serve path
  run timeout 120 "$q" --quiet path 192.0.2.2 --tclass 104 "${small[@]}" --burst 50
  wait "$wire_server"
  expect_rc 1
  expect_out_has "WARN path.traffic_class: here -> 192.0.2.2: sent DSCP 26 (AF31), received DSCP 0 (CS0): re-marked on the way"
  expect_true "the other way is not named" bash -c '! grep -q "192.0.2.2 -> here" <<<"$1"' _ "$out"
else
  bad "cannot add the re-marking filter on B (act_pedit, act_csum)"
fi
wire_reset

case_ "B drops UDP 4791 on ingress: path, ping-pong and bw exit 1 within their timeouts, naming UDP 4791 and the way that fails"
on-b sh -c 'tc qdisc add dev eth0 clsact && tc filter add dev eth0 ingress protocol ip u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop'
path_serve path
start=$SECONDS
run timeout 120 "$q" --json path 192.0.2.2 "${small[@]}" --burst 50
took=$((SECONDS - start))
wait "$wire_server"; server_rc=$?
expect_true "client 1, server 1 (got $rc, $server_rc)" test "$rc/$server_rc" = 1/1
expect_true "within 30 s (took $took s)" test "$took" -le 30
expect_true "here -> 192.0.2.2 fails, naming TCP 18615 and UDP 4791" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
f = [x for x in d["findings"] if x["id"] == "path.roce"]
assert [x["status"] for x in f] == ["fail", "ok"], f
s = f[0]["summary"]
assert s.startswith("here -> 192.0.2.2: TCP 18615 answers, RoCE packets do not arrive (0 of"), s
assert "UDP 4791 dropped on the way or at the receiver" in s and "the receiver\x27s 0 in" in s, s
assert d["round_trip"]["answered"] == 0 and "in a row unanswered" in d["round_trip"]["stopped"], d["round_trip"]
' "$out"
# ping-pong and bw on the same wire: the run stalls, both sides swap their
# RoCE packet counts over the exchange that still answers (ping-pong with
# its results, bw in its "stalled" message and the answer), and name the way.
dropped_run() {  # TEST ARGS...
  local test=$1 took start server_rc; shift
  path_serve "$test" --timeout 5
  start=$SECONDS
  run timeout 60 "$q" "$test" 192.0.2.2 "$@" --timeout 5
  took=$((SECONDS - start))
  wait "$wire_server"; server_rc=$?
  expect_true "$test: client 1, server 1 (a path fault, not a lost peer: got $rc, $server_rc)" test "$rc/$server_rc" = 1/1
  expect_true "$test: within 30 s (took $took s)" test "$took" -le 30
  expect_true "$test's client: here sent N RoCE packets, 192.0.2.2 received none, UDP 4791 named" \
    grep -qE "here sent [1-9][0-9]* RoCE packets since the run began, 192.0.2.2 received none, while the TCP exchange on port 18615 answered: UDP 4791 dropped on the way or at 192.0.2.2" <<<"$out"
  expect_true "$test's server on B: 192.0.2.1 sent N, here received none, at this host" \
    grep -qE "192.0.2.1 sent [1-9][0-9]* RoCE packets since the run began, here received none, .*UDP 4791 dropped on the way or at this host" "$wire_server_log"
}
dropped_run ping-pong -n 100
dropped_run bw -D 2
# qp list --stalled meanwhile names the client's QP that makes no progress
# (what the port counters did in its 2 s is shown when any rose).
# Once the client's QP has resent (no ACK came back), it makes no progress.
path_serve bw --timeout 8
retries_before=$(a_retries)
timeout 60 "$q" bw 192.0.2.2 -D 2 --timeout 8 >/dev/null 2>&1 &
bw_client=$!
while kill -0 "$bw_client" 2>/dev/null && [ "$(a_retries)" -le "$retries_before" ]; do sleep 0.2; done
run timeout 60 "$q" qp list --stalled 2
kill "$bw_client" 2>/dev/null  # seen: its own --timeout would end it 8 s on
wait "$bw_client"
wait "$wire_server"
expect_out_has "no progress in 2 s: SQ PSN"
expect_out_has "(idle, or retrying towards a peer that does not answer)"
sed 's/^/    | /' <<<"$out" | cut -c1-200 | head -12
# With fewer retries than rxe's endless 7, the client's QP ends in
# RETRY_EXC_ERR: explained by where the packets stopped. The server adopts
# the client's --retry-cnt and --qp-timeout.
path_serve --json ping-pong --timeout 5
start=$SECONDS
run timeout 60 "$q" --json ping-pong 192.0.2.2 -n 100 --timeout 5 --retry-cnt 2 --qp-timeout 12
took=$((SECONDS - start))
wait "$wire_server"; server_rc=$?
expect_true "--retry-cnt 2: client 1, server 1 (got $rc, $server_rc), within 30 s (took $took s)" \
  test "$rc/$server_rc" = 1/1 -a "$took" -le 30
expect_true "the client's RETRY_EXC_ERR, then where the packets stopped" python3 -c '
import json, sys
t = json.loads(sys.argv[1])["test"]
r = t["abort_reason"]
assert "completed with RETRY_EXC_ERR" in r and r.index("RETRY_EXC_ERR") < r.index("UDP 4791 dropped on the way or at 192.0.2.2"), r
assert (t["retry_cnt"]["raw"], t["ack_timeout"]["raw"]) == (2, 12), t
' "$out"
expect_true "the server adopted retry count 2 and ACK timeout code 12" \
  test "$(sed -n '/^{/,/^}/p' "$wire_server_log" | jq -r '"\(.test.retry_cnt.raw) \(.test.ack_timeout.raw)"')" = "2 12"
# The rdma_cm server's --timeout is one deadline (issue 39): the client's
# connect request is dropped on B's ingress, while rdma_cm requests that are
# not qpscope's keep coming (perftest's ib_send_lat -R on B itself, through
# rxe's loopback, not eth0). The server rejects each and still ends at its
# own --timeout, while they still come (an order of events: before, each
# one started its --timeout again), naming the requests it rejected.
on-b timeout 120 "$q" --json ping-pong --cm --timeout 10 >"$wire_server_log" 2>&1 &
wire_server=$!
b_listening
on-b sh -c 'end=$(($(date +%s) + 60)); while [ "$(date +%s)" -lt "$end" ]; do
  timeout 5 ib_send_lat -R -p 18616 -n 5 192.0.2.2 >/dev/null 2>&1; sleep 1; done' &
foreign=$!
start=$SECONDS
# The client's own --timeout only has to outlast the server's 10 s: it
# starts after the server listens.
run timeout 120 "$q" --json ping-pong --cm 192.0.2.2 -n 100 --timeout 11
wait "$wire_server"; server_rc=$?
if kill -0 "$foreign" 2>/dev/null; then foreign_still=yes; else foreign_still=no; fi
server_why=$(sed -n '/^{/,/^}/p' "$wire_server_log" | jq -r '.error.message // .test.abort_reason // ""')
echo "    (server $server_rc after about $((SECONDS - start)) s: ${server_why:0:260})"
expect_true "the rdma_cm server ended (exit 3) while foreign requests still came (got $server_rc, $foreign_still)" \
  test "$server_rc/$foreign_still" = 3/yes
expect_true "it names the requests it rejected within the same 10000 ms" \
  grep -qE "\([1-9][0-9]* requests? that were not qpscope's rejected meanwhile, within the same 10000 ms\)" <<<"$server_why"
expect_true "the client did not pass (got $rc)" test "$rc" != 0
kill "$foreign" 2>/dev/null; wait "$foreign" 2>/dev/null
wire_reset

case_ "B's NIC at MTU 1500, A's at 9000: the active MTUs are named, path says which sizes arrive each way, ping-pong takes the smaller"
ip link set eth0 mtu 9000
path_serve --json path
run timeout 120 "$q" --json path 192.0.2.2 "${small[@]}" --burst 50
wait "$wire_server"
expect_true "A 4096, B 1024" test "$(jqo '"\(.here.mtu_bytes) \(.there.mtu_bytes)"')" = "4096 1024"
expect_true "path exits 1, path.port_mtu names both MTUs (got $rc)" \
  test "$rc/$(jqo '[.findings[] | select(.id == "path.port_mtu") | "\(.status): \(.summary)"] | join("")')" = \
  "1/warn: the ports run different active MTUs: here 4096, 192.0.2.2 1024: a connection runs at 1024"
expect_true "B -> A sweeps up to B's 1024, all arrive" \
  test "$(jqo '[.directions[1].sizes[] | select(.arrived == .sent) | .bytes] | join(",")')" = "256,512,1024"
expect_true "A -> B sweeps up to A's 4096, and the report says for each size what arrived" \
  test "$(jqo '[.directions[0].sizes[].bytes] | join(",")')" = "256,512,1024,2048,4096"
echo "   (A -> B, bytes:arrived of ${small[1]}: $(jqo '[.directions[0].sizes[] | "\(.bytes):\(.arrived)"] | join(" ")'); $(jqo '[.findings[] | select(.id == "path.mtu") | .summary] | join("; ")'))"
path_serve ping-pong --timeout 10
run timeout 120 "$q" --json ping-pong 192.0.2.2 -n 50 --timeout 10
wait "$wire_server"
expect_rc 0
expect_true "ping-pong's path MTU is the smaller, 1024" test "$(jqo '.test.path_mtu.bytes')" = 1024
wire_reset

case_ "netem loss 2 % on B's egress: path names the loss on B -> A only, exit 1; ping-pong's tail shows the messages B sent again"
on-b tc qdisc add dev eth0 root netem loss 2%
path_serve path
run timeout 120 "$q" --json path 192.0.2.2 "${small[@]}" --burst 1000
wait "$wire_server"
expect_rc 1
expect_true "B -> A lost 0.5..6 % of 1000, A -> B none" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
out, back = d["directions"]
assert out["burst_arrived"] == 1000, out["burst_arrived"]
lost = 1000 - back["burst_arrived"]
assert 5 <= lost <= 60, lost
loss = [x for x in d["findings"] if x["id"] == "path.loss"]
assert [x["status"] for x in loss] == ["ok", "warn"], loss
assert loss[1]["summary"].startswith("192.0.2.2 -> here: "), loss[1]["summary"]
' "$out"
# RC under the same loss: a reply of B's that is lost is sent again after
# the ACK timeout (code 14, 67 ms), so some round trips take that long.
path_serve ping-pong --timeout 20
run timeout 120 "$q" --json ping-pong 192.0.2.2 -n 1000 --timeout 20
wait "$wire_server"
expect_rc 0
expect_true "the tail: max >= 30 ms one-way (a resent reply) and p99.9 >= 4 x p50" python3 -c '
import json, sys
c = json.loads(sys.argv[1])["client"][0]
print("    (p50 %.3f ms, p99.9 %.3f ms, max %.3f ms)" % (c["p50_ns"] / 1e6, c["p99_9_ns"] / 1e6, c["max_ns"] / 1e6))
assert c["max_ns"] >= 30e6 and c["p99_9_ns"] >= 4 * c["p50_ns"], c
' "$out"
wire_reset

# Loss on the way from A to B: A's writes that B never sees make B count
# requests out of sequence and NAK them; A counts the NAKs and sends again
# (go back N: from the lost packet on). doctor on each host, while bw runs,
# names the counters that rose. Orders of events, not sleeps: the doctors
# start once A's QP has resent (its completer_retry_err rose), bw runs until
# both doctors are done and is then interrupted (a lossy run's length under
# load is not known in advance: a starved A took over 60 s for a doctor).
# --cq-mod 1: each 64-packet write is a completion of its own. With one
# signalled WR in 64 (4096 packets), a completion needed some 80 resend
# rounds at 2 % loss, over 20 s (bw's --timeout) under load: "no completion
# within the timeout", exit 3, though every round made progress.
case_ "netem loss 2 % on A's egress under bw: doctor on A names its resends and the NAKs it got, doctor on B its out-of-sequence requests"
retries_before=$(a_retries)
tc qdisc add dev eth0 root netem loss 2%
on-b timeout 300 "$q" bw --timeout 20 >"$wire_server_log" 2>&1 &  # path_serve's, with bw's bound
wire_server=$!
b_listening
start=$SECONDS
# Not under timeout(1), which relays a SIGINT to its whole process group as
# well (this shell's): bw's own -D 240 and --timeout bound it.
"$q" bw 192.0.2.2 -D 240 --cq-mod 1 --timeout 20 >"$_scratch/bw-a.txt" 2>&1 &
bw_client=$!
while kill -0 "$bw_client" 2>/dev/null && [ "$(a_retries)" -le "$retries_before" ]; do sleep 0.2; done
resending=$((SECONDS - start))
on-b timeout 120 "$q" doctor --no-loopback >"$_scratch/doctor-b.txt" 2>&1 &
doctor_b=$!
run timeout 120 "$q" doctor --no-loopback
wait "$doctor_b"
doctors=$((SECONDS - start))
kill -INT "$bw_client" 2>/dev/null
wait "$bw_client"; bw_rc=$?
wait "$wire_server"; server_rc=$?
echo "    (A resending after $resending s, doctors done after $doctors s, bw ended after $((SECONDS - start)) s)"
bw_why=$(sed -n 's/^ *abort reason *: //p' "$_scratch/bw-a.txt")
b_why=$(sed -n 's/^ *abort reason *: //p' "$wire_server_log")
echo "    (bw on A: exit $bw_rc, ${bw_why:-no abort}; on B: exit $server_rc, ${b_why:-no abort})"
expect_true "bw ran through the loss until interrupted after the doctors: exit 4, 'interrupted' (got $bw_rc, ${bw_why:-no abort})" \
  test "$bw_rc/$bw_why" = "4/interrupted"
expect_true "B's bw says the client ended the run, interrupted" grep -q "client side ended the run: interrupted" <<<"$b_why"
expect_out_has "completer_retry_err"
expect_out_has "rcvd_seq_err"
expect_true "doctor on B names out_of_seq_request" grep -q "out_of_seq_request" "$_scratch/doctor-b.txt"
grep -h "port.counters" - "$_scratch/doctor-b.txt" <<<"$out" | sed 's/^/    /' | cut -c1-240
wire_reset
# A side whose own output drops RoCE: its probes never leave. That side
# says so to its peer before it leaves (its send_err rose while its sends
# did not complete), and the peer names that side's sends, not a stopped
# peer: both exit 1, within their timeouts (issue 39). B's own: its first
# echo of A's pings stays in its send queue until B's --timeout; A waits
# for B's word that long and its own --timeout more. A's own: its first
# ping stays in its send queue past the ping's 500 ms.
for side in B A; do
  case_ "$side's own output drops RoCE (nftables, UDP 4791): path on both sides names $side's sends that never left, exit 1"
  if [ "$side" = B ]; then on-b sh -c "$drop_roce_output"; else sh -c "$drop_roce_output"; fi
  path_serve --json path --timeout 10
  start=$SECONDS
  run timeout 120 "$q" --json path 192.0.2.2 "${small[@]}"
  took=$((SECONDS - start))
  wait "$wire_server"; server_rc=$?
  server_json=$(sed -n '/^{/,/^}/p' "$wire_server_log")
  a_why=$(jqo '.error.message // ""'); b_why=$(jq -r '.error.message // ""' <<<"$server_json")
  echo "    (client $rc, server $server_rc, $took s)"
  echo "    (A: ${a_why:0:220})"
  echo "    (B: ${b_why:0:220})"
  expect_true "both exit 1 (got $rc, $server_rc)" test "$rc/$server_rc" = 1/1
  expect_true "ended within both timeouts and 20 s (took $took s)" test "$took" -le 40
  own_words="^rxe0: [0-9]+ UD sends? did not complete within [0-9]+ ms, and port 1's send_err rose by [0-9]+ meanwhile: the device tried to send and this host did not let the packets out"
  if [ "$side" = B ]; then own=$b_why peer=$a_why peer_role=server; else own=$a_why peer=$b_why peer_role=client; fi
  expect_true "$side names its own sends and its send_err" grep -qE "$own_words" <<<"$own"
  expect_true "the other side names $side's word: peer gave up, $peer_role side ended the run, its sends" \
    grep -qE "peer gave up: $peer_role side ended the run: rxe0: [0-9]+ UD sends? did not complete" <<<"$peer"
  wire_reset
done

# B's link down for 3 s mid-run. rxe sends again after each ACK timeout
# while it is down; whether traffic resumes before --timeout once it is up
# varies: the run either reports the gap (its slowest windows) or ends
# naming the link that went down. Never a hang. (bw with --cq-mod 1: a
# batch's bytes are spread over the time since the previous batch, so the
# gap shows in the windows only when each message completes on its own.)
# flap_b AFTER SECONDS: B's eth0 down AFTER s from now, for SECONDS; the
# file $_scratch/flap-down appears just before the link goes down.
flap_b() {
  rm -f "$_scratch/flap-down"
  (sleep "$1"; : >"$_scratch/flap-down"; on-b ip link set eth0 down; sleep "$2"; on-b ip link set eth0 up) &
  flapper=$!
}
# The retry counters of rxe0 port 1 (completer_retry_err rcvd_seq_err
# out_of_seq_request duplicate_request retry_exceeded_err send_err), on one
# line: printed before and after each flap run, so that a run that ended on
# its own shows what the two QPs went through.
rxe_retries='cd /sys/class/infiniband/rxe0/ports/1/hw_counters && cat completer_retry_err rcvd_seq_err out_of_seq_request duplicate_request retry_exceeded_err send_err | tr "\n" " "'
# flap_run TEST GAP_FILTER GAP_TEXT ARGS...: TEST -D 8 with B's link down
# 3 s from its 4th second; exit 0 on both sides must show the gap (jq
# GAP_FILTER true on the client's report). Otherwise, whichever timer fired
# first (B's own failure, a stall, the heartbeat's silence, the exchange's
# wait), B names its own eth0 whenever its link_downed rose during the run,
# and exits 1; A, whose link stayed up, names B's eth0 when B's word crossed
# (exit 1: each side waits for the other's word until --timeout passes
# without a byte, so a word behind TCP's retransmissions after the flap
# still crosses), else says it lost its peer, or that B ended the run and
# its reason did not arrive (exit 3), never a link of its own.
# B's counters are read when both sides have ended, before the flapper is
# waited for: a run that ended before B's link went down (under a CPU hog, an
# RDMA write once completed with REM_INV_REQ_ERR 3 s into the run) is
# checked for what it is, a failure of its own that both sides name alike
# and that names no link, and the flap is then tried once more.
flap_run() {
  local attempt
  for attempt in 1 2; do
    flap_once "$@" && return 0
    echo "    (the run ended before B's link went down: the flap once more)"
  done
  bad "two runs in a row ended before B's link went down: the flap was never tried"
}
# flap_once: one flap run; returns 1 when the run ended before the flap.
flap_once() {
  local test=$1 gap=$2 gap_text=$3 took start server_rc server_json b_before b_after a_why b_why flapped
  local a_retries_before b_retries_before; shift 3
  local b_link='cat /sys/class/infiniband/rxe0/ports/1/hw_counters/link_downed /sys/class/net/eth0/carrier_changes /sys/class/infiniband/rxe0/ports/1/hw_counters/send_err'
  b_before=$(on-b sh -c "$b_link" | tr '\n' ' ')
  a_retries_before=$(sh -c "$rxe_retries") b_retries_before=$(on-b sh -c "$rxe_retries")
  echo "    (B's link_downed, carrier_changes, send_err before: $b_before)"
  path_serve --json "$test" --timeout 10
  flap_b 4 3
  start=$SECONDS
  run timeout 120 "$q" --json "$test" 192.0.2.2 -D 8 --timeout 10 "$@"
  took=$((SECONDS - start))
  wait "$wire_server"; server_rc=$?
  # At the run's end, before the flapper is waited for: the flap had begun
  # when the flapper had started it and B's link_downed had risen.
  flapped=no
  [ -e "$_scratch/flap-down" ] && flapped=yes
  b_after=$(on-b sh -c "$b_link" | tr '\n' ' ')
  [ "${b_after%% *}" -gt "${b_before%% *}" ] || flapped=no
  echo "    (retry counters, A then B: $a_retries_before-> $(sh -c "$rxe_retries")/ $b_retries_before-> $(on-b sh -c "$rxe_retries"))"
  wait "$flapper"
  server_json=$(sed -n '/^{/,/^}/p' "$wire_server_log")
  echo "    (client $rc, server $server_rc, $took s: $(jqo '.test.abort_reason // "no abort"' | cut -c1-160))"
  echo "    (B: $(jq -r '.test.abort_reason // "no abort"' <<<"$server_json" | cut -c1-160))"
  echo "    (B's link_downed, carrier_changes, send_err at the run's end: $b_after; the flap had begun: $flapped)"
  a_why=$(jqo '.test.abort_reason // ""')
  b_why=$(jq -r '.test.abort_reason // ""' <<<"$server_json")
  expect_true "ended within -D + --timeout + 20 s (took $took s)" test "$took" -le 38
  expect_true "no sanitizer report on B" bash -c '! grep -q "ERROR: AddressSanitizer\|runtime error:" "$1"' _ "$wire_server_log"
  if [ "$flapped" = no ]; then
    # Ended on its own before the fault: not a pass of the flap, but what
    # it reports must still hold together.
    expect_true "ended before the flap: both sides fail (got $rc, $server_rc)" test "$rc" != 0 -a "$server_rc" != 0
    expect_true "ended before the flap: the client gives a reason" test -n "$a_why"
    expect_true "ended before the flap: one side's reason carries the other's (the side that failed first told its peer)" \
      bash -c '[ -n "$2" ] && [[ $2 == *"${1:0:60}"* || $1 == *"${2:0:60}"* ]]' _ "$a_why" "$b_why"
    expect_true "ended before the flap: neither side names a link that went down" \
      bash -c '! grep -q "eth0 went down" <<<"$1$2"' _ "$a_why" "$b_why"
    return 1
  fi
  if [ "$rc/$server_rc" = 0/0 ]; then
    expect_true "the gap: $gap_text" test "$(jqo "$gap")" = true
  else
    if grep -q "completed with LOC_QP_OP_ERR" <<<"$b_why"; then
      # B's own send failed while its link was down: rxe's LOC_QP_OP_ERR,
      # explained as such, and B's own link_downed names the link.
      expect_true "B exits 1 and its LOC_QP_OP_ERR names rxe's link down (got $server_rc)" test "$server_rc" = 1 -a \
        "$(jq -r '.test.abort_reason | contains("its netdev cannot send the packet (the link down")' <<<"$server_json")" = true
      expect_true "B names its own eth0 that went down, from its own counters" \
        grep -q "here eth0 went down during the run (link_downed +1)" <<<"$b_why"
    else
      # A stall or a lost peer, whichever timer fired first (the
      # heartbeat's silence, the exchange's wait, A's word that it gave up).
      expect_true "B's link_downed rose ($b_before-> $b_after): B exits 1, a fault of the link, not a lost peer (got $server_rc)" \
        test "$server_rc" = 1
      expect_true "B names its own eth0, whichever timer fired" \
        grep -q "here eth0 went down during the run (link_downed +" <<<"$b_why"
    fi
    # A's link stayed up. B's word (its evidence, or that it ended the run)
    # may wait behind B's link until A's own timer fires.
    if [ "$rc" = 1 ]; then
      expect_true "the client (exit 1) names B's eth0, or says B ended the run: B's word crossed" \
        grep -qE "192.0.2.2's eth0 went down during the run|the peer finished or closed the out-of-band connection" <<<"$a_why"
    else
      expect_true "the client saw nothing of its own: exit 3, a lost peer in TCP's or the watchdog's words (got $rc)" \
        test "$rc" = 3
      expect_true "the client's reason says the peer was lost" \
        grep -qE "stopped answering|ended the run, but its reason did not arrive within [0-9]+ ms|closed the connection|connection reset" <<<"$a_why"
    fi
    expect_true "the client names no link of its own" bash -c '! grep -q "here eth0 went down" <<<"$1"' _ "$a_why"
  fi
}
# The message that completes after the gap spreads its bytes over it: the
# gap's windows hold a sliver of the average, not nothing.
case_ "B's link down 3 s during bw -D 8: the gap reported, or B names its own eth0 whichever timer fired, within their timeouts"
flap_run bw '.client_posts[0] | .min_bytes_per_s < .bytes_per_s / 20' \
  "the slowest 500 ms window under 1/20 of the average" --window 500 --cq-mod 1
case_ "B's link down 3 s during ping-pong -D 8: the gap in the tail, or B names its own eth0 whichever timer fired; no hang"
flap_run ping-pong '.client[0].max_ns >= 1e9' "a sample of 1 s or more"
wire_reset
rm -f "$wire_server_log"
