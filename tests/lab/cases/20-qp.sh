# Lab cases: the QP lifecycle through the holder (`qpscope qp ...`).
# Sourced by tests/lab/run-all with $q set. Uses jq on --json output.

jqo() { jq -r "$1" <<<"$out"; }   # a field of the last run's stdout
non_gsi_qps() { rdma resource show qp | grep -v 'type GSI' | grep -c . ; }

case_ "qp: two QPs created in separate commands"
run "$q" --json qp create -d rxe0
expect_rc 0
A=$(jqo '.qps[0].qpn.raw')
expect_true "state RESET, caps granted" test "$(jqo '.qps[0].state.name')/$(jqo '.qps[0].granted.max_send_wr >= 16')" = "RESET/true"
run "$q" --json qp create -d rxe0
B=$(jqo '.qps[0].qpn.raw')
expect_true "two distinct QPNs ($A, $B)" test -n "$A" -a -n "$B" -a "$A" != "$B"
run "$q" --json qp list --held
expect_true "qp list marks both as held" test "$(jqo '[.qps[] | select(.held)] | length')" = 2
expect_true "a QP in RESET has no port yet: port null, not 0" test "$(jqo '[.qps[] | .port] | map(. == null) | all')" = true
run "$q" qp list --held
expect_true "text: port '-' for a QP in RESET" bash -c 'grep -E "^ +rxe0 +- +0x" <<<"$1" | grep -c . | grep -qx 2' _ "$out"

case_ "qp: RESET → INIT step by step"
for qpn in "$A" "$B"; do
  run "$q" --json qp modify "$qpn" --state init --ib-port 1 --pkey-index 0 --access local_write,remote_write,remote_read
  expect_rc 0
  expect_true "QP $qpn is INIT" test "$(jqo '.modify.qp.state.name')" = INIT
done
run "$q" --json qp list --held
expect_true "bound to port 1 in INIT" test "$(jqo '[.qps[] | .port] | map(. == 1) | all')" = true

case_ "qp: failed checks name the attribute and leave the QP as it was"
rtr=(--state rtr --dgid 192.0.2.1 --gid-index 1 --mtu 1024 --rq-psn 0 --max-dest-rd-atomic 1 --min-rnr-timer 12)
run "$q" qp modify "$A" "${rtr[@]}"
expect_rc 2; expect_err_lines 1; expect_err_has "INIT→RTR on RC needs"; expect_err_has "dest-qpn (missing)"
run "$q" qp modify "$A" "${rtr[@]}" --dest-qpn "$B" --gid-index 9
expect_rc 2; expect_err_has "--gid-index 9 is not a valid GID entry of port 1: valid indices are 0, 1"
run "$q" qp modify "$A" "${rtr[@]}" --dest-qpn "$B" --mtu 4096
expect_rc 2; expect_err_has "--mtu 4096 is above port 1's active MTU of 1024 bytes"
run "$q" qp modify "$A" --state rts --sq-psn 0
expect_rc 2; expect_err_has "INIT→RTS"
run "$q" qp modify "$A" "${rtr[@]}" --dest-qpn 0x1000000
expect_rc 2; expect_err_has "--dest-qpn '0x1000000'"
run "$q" --json qp modify "$A" "${rtr[@]}" --dest-qpn "$B" --dry-run
expect_rc 0
expect_true "dry run names the mask it would send" test "$(jqo '.modify.mask.names | join(",")')" = \
  "STATE,AV,PATH_MTU,RQ_PSN,MIN_RNR_TIMER,MAX_DEST_RD_ATOMIC,DEST_QPN"
expect_true "dry run lists the checks that passed" test "$(jqo '.modify.checks_passed | length')" -ge 4
expect_true "the dgid it would send, in the full GID form" test "$(jqo '.modify.sent["ah_attr.dgid"]')" = \
  "0000:0000:0000:0000:0000:ffff:c000:0201"
run "$q" --json qp query "$A"
expect_true "QP still INIT after every refused or dry request" test "$(jqo '.qp.state.name')" = INIT

case_ "qp: INIT → RTR → RTS, connected to each other"
run "$q" --json qp modify "$A" "${rtr[@]}" --dest-qpn "$B"
expect_rc 0; expect_true "A is RTR" test "$(jqo '.modify.qp.state.name')" = RTR
run "$q" --json qp modify "$B" "${rtr[@]}" --dest-qpn "$A"
expect_rc 0
# B through the old spelling of --qp-timeout: the same value, one note.
for qpn in "$A" "$B"; do
  spelling=--qp-timeout; [ "$qpn" = "$B" ] && spelling=--timeout
  run "$q" qp modify "$qpn" --state rts --sq-psn 0 "$spelling" 67ms --retry-cnt 7 --rnr-retry 7 --max-rd-atomic 1
  expect_rc 0; expect_out_has "67ms → code 14"
  if [ "$qpn" = "$B" ]; then
    expect_err_lines 1
    expect_err_has "qpscope qp modify: note: --timeout is now --qp-timeout (one spelling for one thing across commands)"
  else
    expect_err_lines 0
  fi
done

case_ "qp: post completes a send, an RDMA write and an RDMA read"
run "$q" --json qp post "$A" --op send -s 64
expect_rc 0
expect_true "send SUCCESS, peer got 64 bytes" test \
  "$(jqo '.post.completion.status.name')/$(jqo '.post.peer_completion.opcode.name')/$(jqo '.post.peer_completion.byte_len')" = "SUCCESS/RECV/64"
run "$q" --json qp post "$A" --op write -s 4096
expect_rc 0; expect_true "write SUCCESS" test "$(jqo '.post.completion.status.name')" = SUCCESS
run "$q" --json qp post "$B" --op read -s 128
expect_rc 0; expect_true "read SUCCESS" test "$(jqo '.post.completion.opcode.name')/$(jqo '.post.completion.status.name')" = "RDMA_READ/SUCCESS"

case_ "qp: atomics are refused, each named, where they cannot run"
# A and B were given local_write,remote_write,remote_read: B, A's responder,
# takes no atomics. Nothing is posted (A's sq_psn is checked below).
run "$q" qp post "$A" --op fadd --add 3
expect_rc 2; expect_err_lines 1
expect_err_has "the target QP $(printf '%#x' "$B") was not given remote_atomic access (its access: local_write,remote_write,remote_read): give it --access local_write,remote_write,remote_read,remote_atomic"
run "$q" --json qp create -d rxe0 --transport ud
expect_rc 0; U=$(jqo '.qps[0].qpn.raw')
run "$q" qp post "$U" --op cas --compare 1 --swap 2
expect_rc 2; expect_err_lines 1; expect_err_has "QP $(printf '%#x' "$U") is UD; atomics run on RC QPs only"
run "$q" qp destroy "$U"
expect_rc 0

case_ "qp: atomics between two held RC QPs: fadd counts, cas swaps once"
. "$here/schema-lib.sh"
atomic_access=local_write,remote_write,remote_read,remote_atomic
run "$q" --json qp create -d rxe0 --pair --access "$atomic_access"
expect_rc 0
X=$(jqo '.qps[0].qpn.raw'); Y=$(jqo '.qps[1].qpn.raw')
run "$q" --json qp query "$Y"
y_addr=$(jqo '.qp.buffer.addr.raw'); y_rkey=$(jqo '.qp.buffer.rkey.raw')
fetched=()
for i in 1 2 3 4 5; do
  run "$q" --json qp post "$X" --op fadd --add 3
  expect_rc 0
  fetched+=("$(jqo '.post.atomic.fetched')")
done
expect_valid qp-post
expect_true "the last fadd: FETCH_ADD, 8 bytes, add 3, aimed at Y's buffer with its rkey" test \
  "$(jqo '.post.completion.opcode.name')/$(jqo '.post.size_bytes')/$(jqo '.post.atomic.add')/$(jqo '.post.atomic.remote_addr.raw')/$(jqo '.post.atomic.rkey.raw')" = \
  "FETCH_ADD/8/3/$y_addr/$y_rkey"
expect_true "fadd 5 x 3: each fetched the counter before it (0 3 6 9 12; got ${fetched[*]})" test "${fetched[*]}" = "0 3 6 9 12"
run "$q" --json qp post "$X" --op cas --compare 15 --swap 99
expect_rc 0; expect_valid qp-post
expect_true "cas 15→99 on the counter at 15: COMP_SWAP, fetched 15, swapped" test \
  "$(jqo '.post.completion.opcode.name')/$(jqo '.post.atomic.fetched')/$(jqo '.post.atomic.swapped')" = "COMP_SWAP/15/true"
run "$q" --json qp post "$X" --op cas --compare 15 --swap 7
expect_rc 0; expect_valid qp-post
expect_true "cas 15→7 again: fetched 99, not swapped" test \
  "$(jqo '.post.atomic.fetched')/$(jqo '.post.atomic.swapped')/$(jqo '.post.atomic.compare')/$(jqo '.post.atomic.swap')" = "99/false/15/7"
run "$q" qp post "$X" --op fadd --add 0x0
expect_rc 0
expect_out_has "fetched (the original value)"
expect_true "text: fetched 99 (the failed cas left it)" bash -c 'grep -E "fetched \(the original value\) +: 99$" <<<"$1"' _ "$out"
# --raddr/--rkey: the next 8 bytes of Y's buffer, a counter of its own.
next=$((y_addr + 8))
run "$q" --json qp post "$X" --op fadd --raddr "$(printf '%#x' "$next")" --rkey "$y_rkey"
expect_rc 0
run "$q" --json qp post "$X" --op fadd --raddr "$next" --rkey "$y_rkey"
expect_rc 0; expect_valid qp-post
expect_true "fadd at --raddr: default add 1, fetched 1 the second time" test \
  "$(jqo '.post.atomic.add')/$(jqo '.post.atomic.fetched')/$(jqo '.post.atomic.remote_addr.raw')" = "1/1/$next"
run "$q" qp post "$X" --op fadd --raddr "$((y_addr + 4))" --rkey "$y_rkey"
expect_rc 2; expect_err_lines 1; expect_err_has "an atomic's target must be 8-byte aligned"
run "$q" --json qp query "$X"
expect_true "X still RTS, no completion error kept" test "$(jqo '.qp.state.name')/$(jqo '.qp | has("last_error")')" = "RTS/false"

case_ "qp: atomics on the default device (no -d)"
run "$q" --json qp create --pair --access "$atomic_access"
expect_rc 0
Z1=$(jqo '.qps[0].qpn.raw'); Z2=$(jqo '.qps[1].qpn.raw')
run "$q" --json qp query "$Z1"
expect_true "the default device is rxe0" test "$(jqo '.qp.device')" = rxe0
run "$q" --json qp post "$Z1" --op cas --compare 0 --swap 5
expect_rc 0
expect_true "cas 0→5 on a fresh buffer: fetched 0, swapped" test \
  "$(jqo '.post.atomic.fetched')/$(jqo '.post.atomic.swapped')" = "0/true"
run "$q" --json qp post "$Z2" --op fadd
expect_rc 0
expect_true "the other way round: Z2's fadd fetched Z1's counter (0)" test "$(jqo '.post.atomic.fetched')" = 0
run "$q" --json qp post "$Z1" --op fadd --add 2
expect_rc 0
expect_true "Z2's counter is still the cas's 5 (what Z2 fetched went elsewhere)" test "$(jqo '.post.atomic.fetched')" = 5
for qpn in "$X" "$Y" "$Z1" "$Z2"; do
  run "$q" qp destroy "$qpn"
  expect_rc 0
done

case_ "qp: query shows every attribute as set"
run "$q" --json qp query "$A"
expect_rc 0
expect_true "attributes as set" python3 -c '
import json, sys
q = json.loads(sys.argv[1])["qp"]; b = int(sys.argv[2])
assert q["state"]["name"] == "RTS", q["state"]
assert q["type"]["name"] == "RC"
assert q["dest_qpn"]["raw"] == b, q["dest_qpn"]
assert q["path_mtu"] == {"raw": 3, "bytes": 1024} and isinstance(q["path_mtu"]["bytes"], int), q["path_mtu"]
assert q["access"]["names"] == ["LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ"], q["access"]
assert q["pkey_index"] == 0 and q["pkey"] == {"raw": 0xffff, "name": "0xffff"}, q["pkey"]
assert q["qkey"] == {"raw": 0, "name": "0x0"}, q["qkey"]
assert q["buffer"]["rkey"]["raw"] > 0 and q["buffer"]["rkey"]["name"] == hex(q["buffer"]["rkey"]["raw"]), q["buffer"]
assert isinstance(q["retry_cnt"]["retries"], int) and q["retry_cnt"]["retries"] == 7, q["retry_cnt"]
assert q["timeout"]["raw"] == 14 and abs(q["timeout"]["us"] - 67108.864) < 1e-6, q["timeout"]
assert q["retry_cnt"]["raw"] == 7 and q["rnr_retry"]["raw"] == 7 and q["rnr_retry"]["name"] == "infinite"
assert q["min_rnr_timer"]["raw"] == 12 and q["min_rnr_timer"]["ms"] == 0.64, q["min_rnr_timer"]
assert abs(q["retry_exceeded_wait"]["us"] - 67108.864 * 8) < 1e-3, q["retry_exceeded_wait"]
assert q["max_rd_atomic"] == 1 and q["max_dest_rd_atomic"] == 1
av = q["address_vector"]
assert av["is_global"] and av["dgid"] == "0000:0000:0000:0000:0000:ffff:c000:0201" and av["sgid_index"] == 1, av
assert av["sgid"] == "0000:0000:0000:0000:0000:ffff:c000:0201" and av["port"] == 1, av
assert av["flow_label"] == {"raw": 0, "name": "0x0"}, av
assert av["sgid_type"]["name"] == "RoCE v2", av
assert q["sq_psn"] >= 1  # three requests went out
' "$out" "$B"

case_ "qp: a dead peer gives transport retry counter exceeded after about the derived wait"
run "$q" --json qp create -d rxe0 --pair --qp-timeout 10 --retry-cnt 3
expect_rc 0
A2=$(jqo '.qps[0].qpn.raw'); B2=$(jqo '.qps[1].qpn.raw')
expect_true "the pair is RTS, each pointing at the other" test \
  "$(jqo '.qps[0].state.name')/$(jqo '.qps[1].state.name')" = "RTS/RTS"
run "$q" qp destroy "$B2"
expect_rc 0
run "$q" --json qp post "$A2" --op send
expect_rc 1
expect_true "completion is RETRY_EXC_ERR" test "$(jqo '.post.completion.status.name')" = RETRY_EXC_ERR
derived_ms=$(python3 -c 'print(4.096 * 2**10 * (3 + 1) / 1000)')
waited_ms=$(jqo '.post.waited_ms')
echo "   info derived wait ${derived_ms} ms, waited ${waited_ms} ms"
expect_true "waited about the derived wait (0.5x..10x)" python3 -c '
import sys; d, w = float(sys.argv[1]), float(sys.argv[2]); assert 0.5 * d <= w <= 10 * d, (d, w)' "$derived_ms" "$waited_ms"
run "$q" --json qp query "$A2"
expect_true "query: ERR with a diagnosis naming the error and the counters" python3 -c '
import json, sys
q = json.loads(sys.argv[1])["qp"]
assert q["state"]["name"] == "ERR", q["state"]
assert q["last_error"]["status"]["name"] == "RETRY_EXC_ERR"
d = q["diagnosis"]
assert "RETRY_EXC_ERR" in d["summary"], d["summary"]
assert any("dest-qpn" in c for c in d["checks"]), d["checks"]
c = {name: x["value"] for name, x in d["error_counters"].items()}
assert c.get("retry_exceeded_err", 0) >= 1, c
' "$out"
run "$q" qp query "$A2"
expect_out_has "diagnosis"; expect_out_has "what happened"

case_ "qp: bad input and refused caps"
run "$q" qp modify 0xzz --state init
expect_rc 2; expect_err_has "QPN '0xzz'"
run "$q" qp query 999999
expect_rc 2; expect_err_has "no QP 0xf423f"
run "$q" qp create -d rxe0 --send-wr 2000000
expect_rc 2; expect_err_has "--send-wr 2000000 exceeds rxe0's max_qp_wr"
run "$q" qp create -d rxe0 --max-inline 100000
expect_rc 2; expect_err_has "--max-inline 100000 was refused by rxe0: the largest it accepts"
run "$q" qp create -d nosuch0
expect_rc 2; expect_err_has "unknown device 'nosuch0'"
run "$q" qp modify "$A" --access remote_sing
expect_rc 2; expect_err_has "remote_sing"

case_ "qp: another user cannot reach the holder"
run setpriv --reuid 65534 --regid 65534 --clear-groups env QPSCOPE_HOLDER_DIR=/tmp/qpscope-0 "$q" qp destroy --all
expect_rc 2; expect_err_has "belongs to uid 0, not to you (uid 65534)"
run setpriv --reuid 65534 --regid 65534 --clear-groups "$q" qp post "$A"
expect_rc 1; expect_err_has "no holder is running"
run setpriv --reuid 65534 --regid 65534 --clear-groups "$q" qp post "$A" --op fadd --add 3
expect_rc 1; expect_err_has "no holder is running"
run setpriv --reuid 65534 --regid 65534 --clear-groups "$q" qp post "$A" --op cas --compare 15
expect_rc 2; expect_err_lines 1; expect_err_has "missing: --swap"

case_ "qp: query of another process's QP (ib_send_lat) through the kernel view"
ib_send_lat -x 1 -d rxe0 -n 100000000 >/dev/null 2>&1 &
server=$!
# perftest's client does not retry: start it once the server listens.
eventually 60 bash -c 'ss -ltn | grep -q ":18515 "'
timeout 120 ib_send_lat -x 1 -d rxe0 -n 100000000 127.0.0.1 >/dev/null 2>&1 &
client=$!
rts_of() { "$q" --json qp list --pid "$1" --state rts | jq -e '.qps | length == 1'; }
eventually 60 rts_of "$server" || bad "ib_send_lat's QP did not reach RTS within 60 s"
run "$q" --json qp list --pid "$server"
expect_true "ib_send_lat's server has one RC QP" test "$(jqo '.qps | length')/$(jqo '.qps[0].type.name')" = "1/RC"
qpn=$(jqo '.qps[0].qpn.raw')
run "$q" --json qp query "$qpn"
expect_rc 0
expect_true "RTS, its pid and command name, not held" test \
  "$(jqo '.qp.state.name')/$(jqo '.qp.pid')/$(jqo '.qp.comm')/$(jqo '.qp.held')" = "RTS/$server/ib_send_lat/false"
kill "$server" "$client" 2>/dev/null; wait "$server" "$client" 2>/dev/null

case_ "qp: destroy --all leaves nothing registered"
run "$q" --json qp destroy --all
expect_rc 0; expect_true "holder exits" test "$(jqo '.destroyed | length')/$(jqo '.holder_exits')" = "3/true"
expect_true "no holder process (within 10 s)" eventually 10 bash -c '! pgrep -x qpscope-holder'
expect_true "no QP of ours in rdma resource show qp" test "$(non_gsi_qps)" = 0
run "$q" qp list --held
expect_rc 0; expect_out_has "0 QP(s)"

case_ "qp: an idle holder exits by itself and releases everything"
idle_start=$SECONDS
run "$q" qp create -d rxe0 --idle-timeout 2
expect_rc 0
expect_true "holder gone after its idle timeout (within 30 s)" eventually 30 bash -c '! pgrep -x qpscope-holder'
expect_true "not before its 2 s (gone after $((SECONDS - idle_start)) s)" test $((SECONDS - idle_start)) -ge 2
expect_true "its QP released" test "$(non_gsi_qps)" = 0

# SIGINT/SIGTERM in the commands that wait on the holder (issue 39): exit 4,
# and the holder never keeps a QP that nobody was told of. Orders of events:
# the signal goes once the command waits for the holder's reply (in poll).
holder_log=${QPSCOPE_HOLDER_DIR:-/tmp/qpscope-0}/holder.log
waits_in_poll() { case $(cat "/proc/$1/wchan" 2>/dev/null) in *poll*) return 0 ;; esac; return 1; }
# interrupt_waiting SIGNAL CMD...: CMD in the background, SIGNAL once it
# waits in poll (60 s at most), then its end (60 s); $out, $err, $rc.
interrupt_waiting() {
  local sig=$1 pid; shift
  "$@" >"$_scratch/out" 2>"$_scratch/err" &
  pid=$!
  eventually 60 waits_in_poll "$pid" || bad "$* did not wait for the holder within 60 s"
  kill -"$sig" "$pid"
  eventually 60 _not_running "$pid" || kill -9 "$pid"
  wait "$pid"; rc=$?
  _read_file out "$_scratch/out"
  _read_file err "$_scratch/err"
}

case_ "SIGINT in qp create (no -d) while its holder is stopped: exit 4; resumed, the holder destroys the QP nobody took"
run "$q" --json qp create
expect_rc 0
kept=$(jqo '.qps[0].qpn.raw')
holder=$(pgrep -x qpscope-holder)
kill -STOP "$holder"
interrupt_waiting INT "$q" --json qp create
kill -CONT "$holder"
expect_rc 4
expect_true "the error says interrupted, waiting for the holder, which undoes the create (got: $(jqo '.error.message' | cut -c1-160))" \
  test "$(jqo '.error.kind')/$(jqo '.error.message | startswith("interrupted by SIGINT while waiting for the holder (it had the request: it creates the QP and, its reply not taken, destroys it)")')" = "interrupted/true"
eventually 30 grep -q "destroyed: its client left before taking the reply" "$holder_log" ||
  bad "the holder did not undo the create whose client left (log: $(tail -2 "$holder_log"))"
run "$q" --json qp list --held
expect_true "the holder keeps only the QP made before ($kept)" test "$(jqo '[.qps[].qpn.raw] | join(",")')" = "$kept"
expect_true "rdma res: one QP of ours" test "$(non_gsi_qps)" = 1

case_ "SIGTERM in qp post while the holder waits for a completion that a dead peer delays: exit 4, the holder keeps serving"
run "$q" --json qp create -d rxe0 --pair --qp-timeout 18 --retry-cnt 7
expect_rc 0
A3=$(jqo '.qps[0].qpn.raw'); B3=$(jqo '.qps[1].qpn.raw')
run "$q" qp destroy "$B3"
expect_rc 0
# About 8 retries of 1 s each before RETRY_EXC_ERR: the post waits for them.
lost_before=$(grep -c "reply lost" "$holder_log")
interrupt_waiting TERM "$q" --json qp post "$A3" --op send --wait 20000
expect_rc 4
expect_true "interrupted by SIGTERM, the send posted on $A3, the holder's bound named (got: $(jqo '.error.message' | cut -c1-160))" \
  jq_true '.error.kind == "interrupted" and (.error.message | test("^interrupted by SIGTERM while waiting for the holder \\(it had the request: it posts the send on QP 0x[0-9a-f]+, waits at most [0-9]+ ms"))' <<<"$out"
# The holder serves one request at a time: it answers once the post's own
# wait has ended (the completion came, or the bound passed) and the reply
# found nobody.
lost_more() { [ "$(grep -c "reply lost" "$holder_log")" -gt "$lost_before" ]; }
eventually 60 lost_more || bad "the holder's post did not end within 60 s"
run "$q" --json qp query "$A3"
expect_rc 0
expect_true "the holder answers; its QP $A3 is there" test "$(jqo '.qp.qpn.raw')" = "$A3"
run "$q" --json qp destroy --all
expect_rc 0
eventually 30 bash -c '! pgrep -x qpscope-holder' || bad "the holder did not exit after destroy --all"
expect_true "nothing left: no QP of ours in rdma res" test "$(non_gsi_qps)" = 0

case_ "a holder whose first create never came (its qp create interrupted at the start) exits holding nothing, after 10 s"
# The holder as qp create starts it, given no request.
mkdir -m 700 "$_scratch/hold"
"$q" __holder --dir "$_scratch/hold" --idle 600 2>"$_scratch/hold/holder.log" &
lone=$!
start=$SECONDS
eventually 60 _not_running "$lone" || { kill "$lone"; bad "the holder kept waiting with nothing to hold"; }
wait "$lone"; lone_rc=$?
expect_true "it exits 0 after 10 s or more, and says why (exit $lone_rc after $((SECONDS - start)) s)" \
  test "$lone_rc" = 0 -a $((SECONDS - start)) -ge 10
expect_true "its log line names it" grep -q "holding nothing for 10 s, exiting" "$_scratch/hold/holder.log"

case_ "qp srq: an SRQ (no -d), a pair on it; a send's receive lands in the SRQ; query names it; destroy refused while used; --all leaves nothing"
run "$q" --json qp srq create --max-wr 8 --limit 2
expect_rc 0
expect_valid qp-srq
S=$(jqo '.id')
expect_true "SRQ $S: at least 8 receives, limit 2 armed, no QP yet" \
  test "$(jqo '.max_wr >= 8 and .limit == 2 and .qps == [] and .posted == 0')" = true
run "$q" --json qp create --pair --srq "$S"
expect_rc 0
SA=$(jqo '.qps[0].qpn.raw'); SB=$(jqo '.qps[1].qpn.raw')
run "$q" --json qp query "$SB"
expect_rc 0
expect_valid qp-query
expect_true "qp query: QP $SB takes its receives from SRQ $S" test "$(jqo '.qp.srq')" = "$S"
run "$q" qp query "$SB"
expect_true "text: the SRQ named" bash -c 'grep -qE "SRQ \(receives from\) +: $1\$" <<<"$2"' _ "$S" "$out"
run "$q" --json qp post "$SB" --recv
expect_rc 0
expect_valid qp-post
expect_true "post --recv on QP $SB: one receive into SRQ $S" \
  test "$(jqo '.post.op == "recv" and .post.count == 1 and .post.srq.id == '"$S"' and .post.srq.posted == 1')" = true
run "$q" --json qp post "$SA" --op send -s 64
expect_rc 0
expect_valid qp-post
expect_true "send SUCCESS, the peer's receive (from the SRQ) got 64 bytes" test \
  "$(jqo '.post.completion.status.name')/$(jqo '.post.peer_completion.opcode.name')/$(jqo '.post.peer_completion.byte_len')" = "SUCCESS/RECV/64"
run "$q" --json qp srq query "$S"
expect_rc 0
expect_valid qp-srq
expect_true "SRQ $S serves both QPs, one receive posted to it and taken" \
  test "$(jq -c --argjson a "$SA" --argjson b "$SB" '([.qps[].raw] | sort) == ([$a, $b] | sort) and .posted == 1 and .consumed == 1' <<<"$out")" = true
run "$q" qp srq destroy "$S"
expect_rc 2
expect_err_has "SRQ $S serves QP"
run "$q" qp srq query 99
expect_rc 2
expect_err_has "SRQ 99 is not held by this user's holder; held SRQs: $S"
run "$q" --json qp srq modify "$S" --limit 0
expect_rc 0
expect_true "limit 0: disarmed" test "$(jqo '.limit')" = 0
run "$q" --json qp create --srq "$S" -d rxe9
expect_rc 2
run "$q" --json qp destroy --all
expect_rc 0

case_ "qp srq: --limit armed, receives taken below it: SRQ_LIMIT_REACHED shown, with when; the limit disarmed"
run "$q" --json qp srq create -d rxe0 --max-wr 16
S=$(jqo '.id')
run "$q" --json qp create -d rxe0 --pair --srq "$S"
expect_rc 0
SA=$(jqo '.qps[0].qpn.raw'); SB=$(jqo '.qps[1].qpn.raw')
run "$q" --json qp post "$SB" --recv --count 8
expect_rc 0
run "$q" --json qp srq modify "$S" --limit 4
expect_true "limit 4 armed, no event yet" test "$(jqo '.limit == 4 and .events == []')" = true
run "$q" --json qp post "$SA" --op send --count 6
expect_rc 0
expect_valid qp-post
expect_true "6 sends, 6 SUCCESS, 6 receives on the peer" \
  test "$(jqo '.post.count == 6 and .post.completed == 6 and .post.succeeded == 6 and .post.peer_completions == 6')" = true
eventually 10 bash -c '"$1" --json qp srq query "$2" | jq -e ".events | length > 0" >/dev/null' _ "$q" "$S" ||
  bad "no event in 10 s"
run "$q" --json qp srq query "$S"
expect_valid qp-srq
expect_true "SRQ_LIMIT_REACHED (2 left of 8, below 4), a warning with its time; the limit reads 0 (fired)" \
  test "$(jqo '.events[0].event == "SRQ_LIMIT_REACHED" and .events[0].severity == "warning" and (.events[0].at | test("^20[0-9-]+T")) and .limit == 0 and .consumed == 6')" = true
run "$q" qp srq query "$S"
expect_out_has "SRQ_LIMIT_REACHED (warning)"
run "$q" --json qp destroy --all
expect_rc 0

case_ "qp srq: an SRQ asked 4 deep (as deep as the device grants it) against 64 sends in flight, rnr-retry 1 (no -d): RNR_RETRY_EXC_ERR, named as the SRQ's depth"
run "$q" --json qp srq create --max-wr 4
S=$(jqo '.id')
D=$(jqo '.max_wr')
run "$q" --json qp create --pair --srq "$S" --send-wr 64 --rnr-retry 1 --min-rnr-timer 1
expect_rc 0
SA=$(jqo '.qps[0].qpn.raw'); SB=$(jqo '.qps[1].qpn.raw')
run "$q" --json qp post "$SB" --recv --count "$D"
expect_rc 0
run "$q" --json qp post "$SA" --op send --count 64
expect_rc 1
expect_valid qp-post
expect_true "the first failure is RNR_RETRY_EXC_ERR after the SRQ's $D receives were taken" \
  test "$(jqo '.post.completion.status.name')/$(jqo '.post.succeeded')/$(jqo '.post.completed')" = "RNR_RETRY_EXC_ERR/$D/64"
expect_true "rnr names the SRQ and its depth, the sends, the retries" bash -c \
  'grep -qF "takes its receives from SRQ $1 of depth $2 (max_wr): $2 posted, $2 taken, 0 left when send $(($2 + 1)) of 64 arrived" <<<"$3" &&
   grep -qF "gave up after rnr-retry 1" <<<"$3" && grep -qF "more than its depth" <<<"$3"' _ "$S" "$D" "$(jqo '.post.rnr')"
run "$q" --json qp destroy --all
expect_rc 0
expect_true "destroy --all: the holder exits" test "$(jqo '.holder_exits')" = true
eventually 30 bash -c '! pgrep -x qpscope-holder' || bad "the holder did not exit after destroy --all"
expect_true "nothing left: no QP of ours in rdma res" test "$(non_gsi_qps)" = 0
case_ "XRC on rxe0 (no -d, and -d rxe0): every XRC path of qp, ping-pong and bw is refused by name, exit 1, before anything is made"
xrc_msg="rxe0 has no XRC: device_cap_flags lacks XRC (bit 20); XRC needs a device that has it (mlx4, mlx5, hns)"
xrcd_file="$_scratch/xrc-domain"
run "$q" qp create --transport xrc-send
expect_rc 1; expect_err_lines 1; expect_err_has "$xrc_msg"
run "$q" --json qp create -d rxe0 --transport xrc-recv --xrcd "$xrcd_file"
expect_rc 1
expect_valid error
expect_true "the JSON error names it" test "$(jq -r '.error.message' <<<"$out")" = "$xrc_msg"
run "$q" qp xrcd open "$xrcd_file"
expect_rc 1; expect_err_has "$xrc_msg"
expect_true "no domain file made" test ! -e "$xrcd_file"
run "$q" qp srq create -d rxe0 --xrcd "$xrcd_file"
expect_rc 1; expect_err_has "$xrc_msg"
run "$q" qp query --xrcd "$xrcd_file" 0x11
expect_rc 1; expect_err_has "$xrc_msg"
run "$q" qp create --transport xrc-recv
expect_rc 2; expect_err_has "--transport xrc-recv lives in an XRC domain: give --xrcd FILE"
run timeout 60 "$q" ping-pong 127.0.0.1 --transport xrc -p 18690 --timeout 5
expect_rc 1; expect_err_lines 1; expect_err_has "--transport xrc: $xrc_msg"
run timeout 60 "$q" bw 127.0.0.1 -d rxe0 --transport xrc -p 18690 --timeout 5
expect_rc 1; expect_err_has "--transport xrc: $xrc_msg"
run timeout 60 "$q" bw -d rxe0 --transport xrc -p 18690 --timeout 5
expect_rc 1; expect_err_has "--transport xrc: $xrc_msg"
expect_true "nothing made: no QP of ours in rdma res" test "$(non_gsi_qps)" = 0

sch_done
