# Lab case: bytes from outside in a process name. A QP owner run by nobody
# from a file whose name holds 0xFF and an ESC sequence (a command's name is
# its file name: any local user can do this) is left with a stuck QP (its
# perftest peer SIGKILLed, as in 27-doctor.sh). As root, qp list, qp list
# --stalled, qp query of its QP and doctor, each with and without --json,
# succeed: the text shows the name escaped and never the raw bytes, the JSON
# names the process (comm with U+FFFD, comm_raw exact) and validates.
# Sourced by tests/lab/run-all with $q set.

ob_dir=$(mktemp -d)
chmod 0755 "$ob_dir"
ob_name=$'qp\xff\e[2Jx'
ob_raw=7170ff1b5b324a78
ob_text='qp\xff\e[2Jx'
cp /usr/bin/ib_write_bw "$ob_dir/$ob_name"
ob_mode=$(stat -c %a /dev/infiniband/uverbs0)
chmod 0666 /dev/infiniband/uverbs0
# no_raw_bytes: the last stdout holds neither ESC nor 0xFF.
no_raw_bytes() { ! LC_ALL=C grep -q $'[\x1b\xff]' "$_scratch/out"; }

case_ "outside bytes: a QP owner named qp\\xff\\e[2Jx, run by nobody, left with a stuck QP"
timeout 90 ib_write_bw -d rxe0 -x 1 -D 60 -p 18720 >/dev/null 2>&1 &
ob_server=$!
eventually 30 listening 18720 || bad "ib_write_bw's server did not listen on 18720 within 30 s"
timeout 90 setpriv --reuid=65534 --regid=65534 --clear-groups -- "$ob_dir/$ob_name" -d rxe0 -x 1 -D 60 -p 18720 127.0.0.1 \
  >/dev/null 2>&1 &
ob_client=$!
expect_true "its QP shows in qp list" eventually 30 bash -c '[ "$(rdma resource show qp | grep -c ib_write_bw)" = 1 ] && [ "$("$1" --json qp list | jq -r --arg raw "$2" "[.qps[] | select(.comm_raw == \$raw)] | length")" = 1 ]' _ "$q" "$ob_raw"
sleep 2
pkill -9 -P "$ob_server"
eventually 10 bash -c '! rdma resource show qp | grep -q ib_write_bw'
ob_pid=$(pgrep -u 65534 -P "$ob_client")
expect_true "the owner runs as nobody (pid ${ob_pid:-none})" test -n "$ob_pid"
for _ in 1 2 3 4 5 6 7 8; do
  run timeout 60 "$q" qp list --stalled 2
  grep -q STUCK <<<"$out" && break
done

case_ "outside bytes: qp list --stalled, text and JSON"
expect_rc 0
expect_out_has "pid $ob_pid ($ob_text): STUCK"
expect_true "no raw ESC or 0xFF on stdout" no_raw_bytes
run timeout 60 "$q" --json qp list --stalled 2
expect_rc 0
printf '%s\n' "$out" >"$ob_dir/qp-list-stalled.json"
expect_true "JSON names the process: comm with U+FFFD, comm_raw exact, its pid" \
  test "$(jq -c --arg raw "$ob_raw" '[.qps[] | select(.comm_raw == $raw) | [.comm == "qp\ufffd\u001b[2Jx", .pid]]' <<<"$out")" = "[[true,$ob_pid]]"

case_ "outside bytes: qp list, text and JSON"
run timeout 60 "$q" qp list
expect_rc 0
expect_true "a row with its pid and its name escaped" bash -c 'grep -F -- "$2" <<<"$1" | grep -qw -- "$3"' _ "$out" "$ob_text" "$ob_pid"
expect_true "no raw ESC or 0xFF on stdout" no_raw_bytes
run timeout 60 "$q" --json qp list
expect_rc 0
printf '%s\n' "$out" >"$ob_dir/qp-list.json"
ob_qpn=$(jq -r --arg raw "$ob_raw" '.qps[] | select(.comm_raw == $raw) | .qpn.raw' <<<"$out")
expect_true "its QPN is known (${ob_qpn:-none})" test -n "$ob_qpn"

case_ "outside bytes: qp query of its QP, text and JSON"
run timeout 60 "$q" qp query "$ob_qpn"
expect_rc 0
expect_out_has "$ob_text"
expect_true "no raw ESC or 0xFF on stdout" no_raw_bytes
run timeout 60 "$q" --json qp query "$ob_qpn"
expect_rc 0
printf '%s\n' "$out" >"$ob_dir/qp-query.json"
expect_true "JSON: comm_raw and pid" test "$(jq -c '[.qp.comm_raw, .qp.pid, .qp.held]' <<<"$out")" = "[\"$ob_raw\",$ob_pid,false]"

case_ "outside bytes: doctor, text and JSON"
run timeout 120 "$q" doctor --no-loopback --interval 2
expect_rc 0
expect_out_has "of pid $ob_pid ($ob_text) is stuck"
expect_true "no raw ESC or 0xFF on stdout" no_raw_bytes
run timeout 120 "$q" --json doctor --no-loopback --interval 2
expect_rc 0
printf '%s\n' "$out" >"$ob_dir/doctor.json"
expect_true "qp.stuck: seen.comm_raw exact" \
  test "$(jq -r '[.findings[] | select(.id == "qp.stuck") | .seen.comm_raw] | join(",")' <<<"$out")" = "$ob_raw"

case_ "outside bytes: every document validates against its schema"
ob_schemas=$(cd "$here/../../docs/schema" && pwd)
expect_true "qp-list (twice), qp-query, doctor" python3 -c '
import json, sys
import jsonschema
d, s = sys.argv[1], sys.argv[2]
for doc, schema in (("qp-list-stalled", "qp-list"), ("qp-list", "qp-list"), ("qp-query", "qp-query"), ("doctor", "doctor")):
    jsonschema.validate(json.load(open(f"{d}/{doc}.json")), json.load(open(f"{s}/{schema}.schema.json")))
' "$ob_dir" "$ob_schemas"

case_ "outside bytes: nothing left behind"
kill -9 "$ob_pid" 2>/dev/null
wait "$ob_client" "$ob_server" 2>/dev/null
expect_true "its QP is gone" eventually 10 bash -c '[ "$("$1" --json qp list | jq -r --arg raw "$2" "[.qps[] | select(.comm_raw == \$raw)] | length")" = 0 ]' _ "$q" "$ob_raw"
chmod "$ob_mode" /dev/infiniband/uverbs0
rm -rf "$ob_dir"
