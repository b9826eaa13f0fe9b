# Lab cases: `qpscope bw` between two qpscope processes on rxe0.
# Sourced by tests/lab/run-all with $q set.

jqo() { jq -r "$1" <<<"$out"; }
bw_log=$(mktemp)
. "$here/schema-lib.sh"

# bw_serve [ARGS]: a server in the background ($server is its pid).
bw_serve() {
  "$q" --json bw -d rxe0 "$@" >"$bw_log" 2>&1 &
  server=$!
}

# The checks every finished run must pass: rows for both directions it
# ran, positive rates with min <= avg <= peak, the data check ok, both
# sides' CPU use; $1 = the JSON, $2 = expected sizes "4096,8192", $3 bidir.
bw_json_ok() {
  python3 -c '
import json, sys
d = json.loads(sys.argv[1]); sizes = [int(s) for s in sys.argv[2].split(",")]; bidir = sys.argv[3] == "1"
t = d["test"]
assert not t["aborted"] and not t["verify_failed"], t
assert t["cooldown_max_messages"] == t["tx_depth"] and t["path_mtu"]["bytes"] == 1024, t
assert isinstance(t["inline_max_bytes"], int), t
keys = ["client_posts"] + (["server_posts", "total"] if bidir else [])
for k in keys:
    rows = d[k]
    assert [r["size_bytes"] for r in rows] == sizes, (k, rows)
    for r in rows:
        if k == "total":
            assert r["bytes_per_s"] > 0 and r["messages_per_s"] > 0, r
            continue
        assert r["messages"] > 0 and r["measured_s"] > 0, r
        assert 0 <= r["min_bytes_per_s"] <= r["peak_bytes_per_s"], r
        if r["windows"] >= 4:
            assert r["min_bytes_per_s"] <= r["bytes_per_s"] * 1.0001 <= r["peak_bytes_per_s"] * 1.0002, r
        assert abs(r["bytes_per_s"] - r["messages"] * r["size_bytes"] / r["measured_s"]) < 1e-6 * r["bytes_per_s"], r
        assert r["poster_cpu_percent"] > 0 and r["peer_cpu_percent"] is not None, r
        assert r["verified"].startswith("ok"), r
        if t["op"] == "send":
            # What the receiver counted; with both sides busy-polling in a
            # 2-CPU VM, rxe delivers in bursts, so only the rate of a lone receiver
            # rate is certain to be positive.
            assert r["received_bytes_per_s"] is not None, r
            assert bidir or r["received_bytes_per_s"] > 0, r
' "$1" "$2" "$3"
}

case_ "bw: every op x transport moves data between two qpscope processes, and the data is checked"
for combo in "write rc" "send rc" "read rc" "write uc" "send uc" "send ud"; do
  set -- $combo
  bw_serve --timeout 20
  run timeout 180 "$q" --json bw 127.0.0.1 -d rxe0 --op "$1" --transport "$2" -s 1024 -n 2000 -w 20 --timeout 20
  wait "$server"; server_rc=$?
  expect_true "$1/$2: client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
  expect_true "$1/$2: rates, windows, CPU of both sides, data check" bw_json_ok "$out" 1024 0
  expect_true "$1/$2: the server's report has the same figures" python3 -c '
import json, sys
c = json.loads(sys.argv[1]); s = json.loads(open(sys.argv[2]).read())
assert s["test"]["role"] == "server" and c["client_posts"][0]["bytes_per_s"] == s["client_posts"][0]["bytes_per_s"]
' "$out" "$bw_log"
done

case_ "bw: a read keeps as many reads in flight as both ends allow (the peer's limit comes with its endpoint)"
init=$(ibv_devinfo -v -d rxe0 | awk '$1 == "max_qp_init_rd_atom:" { print $2 }')
target=$(ibv_devinfo -v -d rxe0 | awk '$1 == "max_qp_rd_atom:" { print $2 }')
want=$(( init < target ? init : target )); want=$(( want > 255 ? 255 : want ))
bw_serve --timeout 20
run timeout 120 "$q" --json bw 127.0.0.1 -d rxe0 --op read -s 4096 -n 500 --timeout 20
wait "$server"
expect_rc 0
expect_true "client: reads_in_flight $want = min(max_qp_init_rd_atom $init, max_qp_rd_atom $target)" \
  test "$(jq -r '.test.reads_in_flight' <<<"$out")" = "$want"
expect_true "server reports it too" test "$(jq -r '.test.reads_in_flight' "$bw_log")" = "$want"
bw_serve --timeout 20
run timeout 120 "$q" bw 127.0.0.1 -d rxe0 --op read -s 4096 -n 200 --timeout 20
wait "$server"
expect_out_has "RDMA reads in flight"
bw_serve --timeout 20
run timeout 120 "$q" --json bw 127.0.0.1 -d rxe0 --op write -s 4096 -n 200 --timeout 20
wait "$server"
expect_true "not in a write test's header" test "$(jq -r '.test | has("reads_in_flight")' <<<"$out")" = false

case_ "bw: a write's data that arrived is verified against the pattern, in the server's own report"
bw_serve --timeout 20
run timeout 120 "$q" --json bw 127.0.0.1 -d rxe0 --op write -s 3000 -n 200 --timeout 20
wait "$server"
expect_true "server verified 3000 bytes" test "$(jq -r '.client_posts[0].verified' "$bw_log")" = "ok: 3000 bytes on 1 QP"

case_ "bw: --bidir reports both directions and the total; a sweep gives every size and both sides in one document"
bw_serve --timeout 20
run timeout 240 "$q" --json bw 127.0.0.1 -d rxe0 --op send --bidir -q 2 -s 512:2048 -n 200 --post-list 4 --cq-mod 16 --timeout 20
wait "$server"; server_rc=$?
expect_rc 0
expect_true "server exit 0 (got $server_rc)" test "$server_rc" = 0
expect_true "both directions, the total, sizes 512..2048, 2 QPs" bw_json_ok "$out" 512,1024,2048 1
expect_true "qps 2, post-list 4, cq-mod 16 adopted by the server" test \
  "$(jq -r '[.test.qps, .test.post_list, .test.cq_mod, .test.bidir] | join(",")' "$bw_log")" = "2,4,16,true"
bw_serve --timeout 20
run timeout 120 "$q" bw 127.0.0.1 -d rxe0 --bidir -s 4096 -n 200 --unit MiB/s --timeout 20
wait "$server"
expect_rc 0
expect_out_has "client posts RDMA writes (data client → server), rates in MiB/s"
expect_out_has "server posts RDMA writes (data server → client), rates in MiB/s"
expect_out_has "both directions together, in MiB/s"
expect_true "a text row for 4096 bytes" grep -qE '^  4096 +[0-9]+ ' <<<"$out"

case_ "bw --srq -q 8 --op send (client without -d): the server's 8 QPs take their receives from one SRQ, which served all 8; data checked"
bw_serve --timeout 20
run timeout 240 "$q" --json bw 127.0.0.1 --op send --srq -q 8 -s 1024 -n 500 --timeout 20
wait "$server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
expect_valid bw
expect_true "rates, windows, CPU of both sides, data check" bw_json_ok "$out" 1024 0
expect_true "srq, 8 QPs; the receiver's one SRQ served 8 QPs; its data check names the SRQ" test \
  "$(jq -r '[.test.srq, .test.qps, .client_posts[0].srq_qps_served, .client_posts[0].verified] | join("/")' <<<"$out")" = \
  "true/8/8/ok: 1024 bytes through one SRQ serving 8 QPs"
expect_true "the server adopted --srq and says so" test "$(jq -r '[.test.srq, .test.qps] | join("/")' "$bw_log")" = "true/8"
bw_serve --timeout 20
run timeout 120 "$q" bw 127.0.0.1 -d rxe0 --op send --srq -q 2 -s 256 -n 200 --timeout 20
wait "$server"
expect_rc 0
expect_out_has "QPs ONE SRQ SERVED"
expect_out_has "the SRQ's depth, shared by all QPs (send op)"
run "$q" bw 127.0.0.1 --srq --op write
expect_rc 2
expect_err_has "--srq: a shared receive queue serves receives, which only --op send consumes (not --op write)"
run "$q" bw 127.0.0.1 --srq --op send --transport ud
expect_rc 2
expect_err_has "--srq is built for connected QPs here: --transport rc or uc (not ud)"

case_ "ping-pong --srq --threads 2: both sides' two QPs take their receives from one SRQ each; the server adopts it"
"$q" --json ping-pong -d rxe0 --timeout 20 >"$bw_log" 2>&1 &
server=$!
run timeout 120 "$q" --json ping-pong 127.0.0.1 --op send --srq --threads 2 -s 64 -n 300 --timeout 20
wait "$server"; server_rc=$?
expect_true "client 0, server 0 (got $rc, $server_rc)" test "$rc/$server_rc" = "0/0"
expect_valid ping-pong
expect_true "client: one SRQ, 2 QPs on it, 128 receives deep at least" \
  test "$(jq -r '.test.srq.qps == 2 and .test.srq.depth >= 128' <<<"$out")" = true
expect_true "server: the same" test "$(jq -r '.test.srq.qps == 2 and .test.srq.depth >= 128' "$bw_log")" = true
expect_true "latency measured on both client QPs, samples on each" \
  test "$(jq -r '[.threads[] | select(.side == "client" and .samples > 0)] | length' <<<"$out")" = 2

case_ "bw: duration mode has peak and minimum over windows, warm-up excluded"
bw_serve --timeout 20
run timeout 120 "$q" --json bw 127.0.0.1 -d rxe0 -D 1 -s 4096 --window 50 --timeout 20
wait "$server"
expect_rc 0
expect_true "about 1 s measured, windows of 50 ms, min <= avg <= peak" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); r = d["client_posts"][0]
assert 0.99 < r["measured_s"] < 1.5 and 15 <= r["windows"] <= 30, r
assert r["min_bytes_per_s"] <= r["bytes_per_s"] <= r["peak_bytes_per_s"], r
assert d["test"]["duration_s"] == 1 and d["test"]["window_ms"] == 50' "$out"

case_ "bw: a server whose client is killed mid-run exits 3 within --timeout with a partial report"
bw_serve --timeout 3 --op send
"$q" bw 127.0.0.1 -d rxe0 --op send -s 1024 -D 600 --timeout 3 >/dev/null 2>&1 &
client=$!
in_run() { "$q" --json qp list --pid "$1" --state rts | jq -e '.qps | length == 1'; }
eventually 60 in_run "$client" || bad "the client did not start its run within 60 s"
sleep 1
kill -9 "$client"
start=$(date +%s%N)
wait "$server"; server_rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
out=$(cat "$bw_log")
expect_true "server exit 3 (got $server_rc)" test "$server_rc" = 3
expect_true "it ended within the timeout (${elapsed_ms} ms)" test "$elapsed_ms" -le 5000
expect_true "partial report: aborted, with what it received" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["test"]["aborted"] and d["test"]["abort_reason"], d["test"]' "$out"

case_ "bw: a client whose server is killed mid-run exits 3 with a partial report"
"$q" bw -d rxe0 --timeout 3 >/dev/null 2>&1 &
server=$!
killed_at=$(mktemp)
signal_in_run KILL "$server" "$killed_at" &
killer=$!
run timeout 120 "$q" --json bw 127.0.0.1 -d rxe0 -s 4096 -D 600 --timeout 3
elapsed_ms=$(ms_since_stamp "$killed_at")
rm -f "$killed_at"
expect_rc 3
expect_true "ended ${elapsed_ms} ms after the kill (--timeout 3 s)" test "$elapsed_ms" -le 8000
expect_true "client's partial report names why" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); t = d["test"]
assert t["aborted"] and t["abort_reason"], t
assert d["client_posts"][0]["messages"] > 0, d["client_posts"]' "$out"
# These two only: a bare wait would wait for the schema validator too (schema-lib.sh's coprocess), for ever.
wait "$server" "$killer"
expect_true "nothing of ours left in rdma resource show qp" no_qps_left

case_ "bw: bad combinations and mismatched parameters are refused with one line"
run "$q" bw 127.0.0.1 --op read --transport ud
expect_rc 2; expect_err_has "--op read is not possible on --transport ud"
run "$q" bw 127.0.0.1 --cq-mod 300
expect_rc 2; expect_err_has "--cq-mod 300 must be 1..--tx-depth (128)"
bw_serve --timeout 5
run timeout 60 "$q" bw 127.0.0.1 -d rxe0 --op send --transport ud -s 8192 --timeout 5
expect_rc 2; expect_err_has "UD messages must fit the path MTU"
wait "$server"
bw_serve --timeout 5 --qps 2
run timeout 60 "$q" bw 127.0.0.1 -d rxe0 --timeout 5
expect_true "client fails (got $rc)" test "$rc" -ne 0
expect_err_has "qps: local 2, remote 1"
wait "$server"
run timeout 30 "$q" bw 127.0.0.1 -d rxe0 -p 18697 --timeout 1
expect_rc 3; expect_err_lines 1
expect_true "nothing of ours left in rdma resource show qp" no_qps_left
rm -f "$bw_log"
sch_done
