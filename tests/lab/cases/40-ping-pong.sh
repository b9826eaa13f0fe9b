# Lab cases: `qpscope ping-pong` between two qpscope processes on rxe0.
# Sourced by tests/lab/run-all with $q set.

jqo() { jq -r "$1" <<<"$out"; }
server_log=$(mktemp)

# serve [ARGS]: a server in the background ($server is its pid).
serve() {
  "$q" --json ping-pong -d rxe0 "$@" >"$server_log" 2>&1 &
  server=$!
}

case_ "ping-pong: every op x transport runs and reports full statistics from both sides"
for combo in "send rc" "write rc" "read rc" "send uc" "write uc" "send ud"; do
  set -- $combo
  serve --timeout 20
  run timeout 120 "$q" --json ping-pong 127.0.0.1 -d rxe0 --op "$1" --transport "$2" -n 300 -w 20 -s 64 --timeout 20
  wait "$server"; server_rc=$?
  expect_true "$1/$2: client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
  server_out=$(cat "$server_log")
  expect_true "$1/$2: every statistic, both sides (read: the server measures nothing, no server figures)" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); op = sys.argv[2]; s = json.loads(sys.argv[4])
assert d["test"]["op"] == op and d["test"]["transport"] == sys.argv[3]
assert d["test"]["one_way"] == (op != "read")
assert d["test"]["path_mtu"] == {"raw": 3, "bytes": 1024}, d["test"]["path_mtu"]
if op == "read":
    assert "server" not in d and "server" not in s, (list(d), list(s))
    assert s["client"][0]["p50_ns"] > 0, s["client"]  # the server shows the client figures it was sent
else:
    assert "server" in d and "server" in s
for side in ("client",) + (() if op == "read" else ("server",)):
    rows = d[side]
    assert len(rows) == 1, (side, rows)
    r = rows[0]
    assert r["size_bytes"] == 64 and r["samples"] == 300, (side, r["samples"])
    keys = ["min_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "max_ns"]
    vals = [r[k] for k in keys]
    assert all(v > 0 for v in vals) and vals == sorted(vals), (side, vals)
    assert r["min_ns"] <= r["mean_ns"] <= r["max_ns"] and r["stddev_ns"] > 0, r
    assert not r["aborted"]
    # The loop period (post to next post): one sample less on the client (the
    # last message has no next post); each period holds its own round trip,
    # so its min is no lower; the server sample is a period already.
    p = d[side + "_loop_period"]
    assert len(p) == 1 and p[0]["size_bytes"] == 64, p
    p = p[0]
    pvals = [p[k] for k in keys]
    assert all(v > 0 for v in pvals) and pvals == sorted(pvals), (side, pvals)
    if side == "client":
        assert p["samples"] == 299 and p["min_ns"] >= r["min_ns"], (p, r)
    else:
        assert p["samples"] == 300 and p["p50_ns"] == r["p50_ns"] and p["max_ns"] == r["max_ns"], (p, r)
if op == "read":
    assert "server_loop_period" not in d, list(d)
' "$out" "$1" "$2" "$server_out"
done

case_ "ping-pong --op read as text: no zero server row, a line saying why"
"$q" ping-pong -d rxe0 --timeout 20 >"$server_log" 2>&1 &
server=$!
run timeout 120 "$q" ping-pong 127.0.0.1 -d rxe0 --op read -n 100 -s 64 --timeout 20
wait "$server"
expect_rc 0
expect_out_has "client (this side), round trip"
expect_out_has "server (the other side): no figures: in a read or atomic test"
expect_true "no server table on the client" bash -c '! grep -q "server (the other side), \(round trip\|loop period\)" <<<"$1"' _ "$out"
expect_true "the server says so too, and shows the client's figures" \
  bash -c 'grep -q "server (this side): no figures" "$1" && grep -q "client (the other side), round trip" "$1" && ! grep -q "server (this side), round trip" "$1"' _ "$server_log"

case_ "ping-pong: a sweep gives one JSON document with every size and both sides; text has a row per size"
serve --timeout 20
run timeout 120 "$q" --json ping-pong 127.0.0.1 -d rxe0 -s 2:256 -n 200 -w 10 --timeout 20
wait "$server"
expect_rc 0
expect_true "sizes 2..256 on both sides" test "$(jqo '[.client[].size_bytes] | join(",")')/$(jqo '[.server[].size_bytes] | join(",")')" = \
  "2,4,8,16,32,64,128,256/2,4,8,16,32,64,128,256"
serve --timeout 20
run timeout 120 "$q" ping-pong 127.0.0.1 -d rxe0 -s 2,1024 -n 200 --histogram --timeout 20
wait "$server"
expect_rc 0
expect_out_has "client (this side), round trip"
expect_out_has "server (the other side), round trip"
expect_out_has "P99.99"
expect_out_has "client (this side), loop period"
expect_out_has "server (the other side), loop period"
expect_out_has "histograms (this side)"
expect_true "a row per size" grep -qE '^  1024 +200 ' <<<"$out"

case_ "ping-pong: duration mode reports percentiles too"
serve --timeout 20
run timeout 120 "$q" --json ping-pong 127.0.0.1 -d rxe0 -D 1 -s 64 --timeout 20
wait "$server"
expect_rc 0
expect_true "samples, p99.99 and measured_s ~1" python3 -c '
import json, sys
r = json.loads(sys.argv[1])["client"][0]
assert r["samples"] > 100 and r["p99_99_ns"] > 0 and 0.9 < r["measured_s"] < 1.5, r' "$out"

case_ "ping-pong: a client whose server never starts exits 3 within --timeout"
# What starting and ending the process costs here (a sanitizer build in the
# VM takes seconds), so the bound checks the connect timeout itself.
start=$(date +%s%N)
"$q" --version >/dev/null
base_ms=$(( ($(date +%s%N) - start) / 1000000 ))
start=$(date +%s%N)
run "$q" ping-pong 127.0.0.1 -d rxe0 -p 18699 --timeout 2
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_rc 3; expect_err_lines 1
expect_err_has "within 2000 ms"
expect_true "gave up after about 2 s (took ${elapsed_ms} ms, process start/exit ${base_ms} ms)" \
  test "$elapsed_ms" -ge 1800 -a "$elapsed_ms" -le $(( 2 * base_ms + 4000 ))

case_ "ping-pong: a client started before its server connects once the server is up"
( sleep 1.5; exec "$q" ping-pong -d rxe0 -p 18698 --timeout 20 >/dev/null 2>&1 ) &
late_server=$!
run timeout 60 "$q" --json ping-pong 127.0.0.1 -d rxe0 -p 18698 -n 200 --timeout 10
wait "$late_server"; late_rc=$?
expect_rc 0
expect_true "server exited 0" test "$late_rc" = 0
expect_true "200 samples" test "$(jqo '.client[0].samples')" = 200

case_ "ping-pong: a server whose client is killed mid-run exits 3 within --timeout with a partial report"
serve --timeout 3
"$q" ping-pong 127.0.0.1 -d rxe0 -n 100000000 --timeout 3 >/dev/null 2>&1 &
client=$!
in_run() { "$q" --json qp list --pid "$1" --state rts | jq -e '.qps | length == 1'; }
eventually 60 in_run "$client" || bad "the client did not start its run within 60 s"
sleep 1
kill -9 "$client"
start=$(date +%s%N)
wait "$server"; server_rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
out=$(cat "$server_log")
expect_true "server exit 3 (got $server_rc)" test "$server_rc" = 3
expect_true "it ended within the timeout (${elapsed_ms} ms)" test "$elapsed_ms" -le 5000
expect_true "partial report: aborted, with the samples it had" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["test"]["aborted"] and d["test"]["abort_reason"], d["test"]
assert d["server"][0]["aborted"] and d["server"][0]["samples"] > 0, d["server"]' "$out"

case_ "ping-pong: a client whose server is killed mid-run exits 3 with a partial report"
"$q" ping-pong -d rxe0 --timeout 3 >/dev/null 2>&1 &
server=$!
killed_at=$(mktemp)
signal_in_run KILL "$server" "$killed_at" &
run timeout 60 "$q" --json ping-pong 127.0.0.1 -d rxe0 -n 100000000 --timeout 3
elapsed_ms=$(ms_since_stamp "$killed_at")
rm -f "$killed_at"
expect_rc 3
expect_true "ended ${elapsed_ms} ms after the kill (--timeout 3 s)" test "$elapsed_ms" -le 8000
expect_true "client's partial report" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); assert d["test"]["aborted"] and d["client"][0]["samples"] > 0' "$out"
wait

case_ "ping-pong: SIGINT ends a server waiting for its first client, SIGTERM a client mid-run: exit 4, interrupted"
"$q" --json ping-pong -d rxe0 -p 18731 >"$server_log" 2>&1 &
server=$!
eventually 30 bash -c '[ -n "$(ss -Hltn "sport = :18731")" ]' || bad "the server did not listen on 18731 within 30 s"
kill -INT "$server"
wait "$server"; server_rc=$?
out=$(cat "$server_log")
expect_true "server exit 4 (got $server_rc)" test "$server_rc" = 4
expect_true "its JSON error is kind interrupted, exit_code 4" \
  jq -e '.error.kind == "interrupted" and .error.exit_code == 4 and (.error.message | test("SIGINT"))' <<<"$out"
"$q" ping-pong -p 18732 --timeout 20 >/dev/null 2>&1 &
server=$!
int_log=$(mktemp)
"$q" --json ping-pong 127.0.0.1 -p 18732 -n 100000000 --timeout 20 >"$int_log" 2>&1 &
int_client=$!
eventually 60 runs_traffic "$int_client" || bad "the client did not start its run within 60 s"
kill -TERM "$int_client"
wait "$int_client"; client_rc=$?
out=$(cat "$int_log")
expect_true "client (no -d) exit 4 (got $client_rc)" test "$client_rc" = 4
expect_true "its partial report says interrupted" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); t = d["test"]
assert t["aborted"] and "interrupted" in t["abort_reason"], t' "$out"
wait "$server"; server_rc=$?
expect_true "the server (no -d) ends by itself, 3: its peer gave up (got $server_rc)" test "$server_rc" = 3
rm -f "$int_log"

case_ "ping-pong: bad combinations and sizes are refused before anything starts"
run "$q" ping-pong 127.0.0.1 --op read --transport uc
expect_rc 2; expect_err_has "--op read is not possible on --transport uc"
run "$q" ping-pong 127.0.0.1 -s 0
expect_rc 2; expect_err_has "-s '0': each size must be 1.."
serve --timeout 5
run timeout 60 "$q" ping-pong 127.0.0.1 -d rxe0 --transport ud -s 4096 --timeout 5
expect_rc 2; expect_err_has "UD messages must fit the path MTU"
wait "$server"
serve --timeout 5 --op write
run timeout 60 "$q" ping-pong 127.0.0.1 -d rxe0 --op send --timeout 5
expect_true "client fails (got $rc)" test "$rc" -ne 0
expect_err_has "op: local write, remote send"
wait "$server"
expect_true "nothing of ours left in rdma resource show qp" no_qps_left
rm -f "$server_log"
