# Lab cases: every command's --json output validates against its JSON
# Schema in docs/schema/ (python3-jsonschema, Draft 2020-12): ports, ports
# --watch (one schema per line), the qp lifecycle, ping-pong, bw and path
# (both sides), and the error document. Sourced by tests/lab/run-all with $q set.

. "$here/schema-lib.sh"
sch_jq() { jq -r "$1" <<<"$out"; }

case_ "schemas: the validator runs and can fail"
expect_true "python3-jsonschema importable ($sch_py)" "$sch_py" -c 'import jsonschema'
echo '{"schema_version": 2, "command": "ports"}' >"$sch_tmp/missing.json"
expect_true "a ports document without devices is rejected" \
  bash -c 'printf "%s\t%s\t\n" "$3" "$4" | "$1" -c "$2" | grep -qx "@@end 1"' _ "$sch_py" "$sch_validator" "$sch_dir/ports.schema.json" "$sch_tmp/missing.json"

case_ "schemas: ports and ports --watch"
run "$q" --json ports
expect_rc 0; expect_valid ports
run "$q" --json ports -d rxe0 -i 1
expect_rc 0; expect_valid ports
run "$q" ports --format json -d rxe0
expect_rc 0; expect_valid ports
run "$q" --json ports --watch 0.2 --count 2
expect_rc 0
expect_true "two JSON lines" test "$(grep -c . <<<"$out")" = 2
expect_valid ports-watch --lines
run "$q" ports --watch 0.2 --count 2 -d rxe0   # into a pipe: JSON lines without --json
expect_rc 0; expect_valid ports-watch --lines

case_ "schemas: the qp lifecycle (create, modify, query, list, post, destroy)"
run "$q" --json qp create -d rxe0
expect_rc 0; expect_valid qp-create
A=$(sch_jq '.qps[0].qpn.raw')
# A pair with a short retry wait, so a post to a destroyed peer fails fast (as in 20-qp.sh).
run "$q" --json qp create --pair -d rxe0 --qp-timeout 10 --retry-cnt 3
expect_rc 0; expect_valid qp-create
P1=$(sch_jq '.qps[0].qpn.raw'); P2=$(sch_jq '.qps[1].qpn.raw')
expect_true "the pair has its steps and notes" test "$(sch_jq '(.steps | length) > 0 and (.notes | length) > 0')" = true
run "$q" --json qp create -d rxe0 --transport ud --to rts
expect_rc 0; expect_valid qp-create
run "$q" --json qp modify "$A" --state init --ib-port 1 --pkey-index 0 --access local_write,remote_write,remote_read
expect_rc 0; expect_valid qp-modify
sch_rtr=(--state rtr --dgid 192.0.2.1 --gid-index 1 --mtu 1024 --rq-psn 0 --max-dest-rd-atomic 1 --min-rnr-timer 12 --dest-qpn "$P1")
run "$q" --json qp modify "$A" "${sch_rtr[@]}" --dry-run
expect_rc 0; expect_valid qp-modify
expect_true "dry run: no QP afterwards" test "$(sch_jq '.modify.dry_run and (.modify | has("qp") | not)')" = true
run "$q" --json qp modify "$A" "${sch_rtr[@]}"
expect_rc 0; expect_valid qp-modify
run "$q" --json qp modify "$A" --state rts --sq-psn 0 --qp-timeout 67ms --retry-cnt 7 --rnr-retry 7 --max-rd-atomic 1
expect_rc 0; expect_valid qp-modify
run "$q" --json qp modify "$A" --state rtr
expect_rc 2; expect_valid error
run "$q" --json qp query "$A"
expect_rc 0; expect_valid qp-query
run "$q" --json qp query 1 -d rxe0   # the GSI QP: the kernel's view
expect_rc 0; expect_valid qp-query
expect_true "kernel view: held false" test "$(sch_jq '.qp.held')" = false
run "$q" --json qp list
expect_rc 0; expect_valid qp-list
run "$q" --json qp list --held
expect_rc 0; expect_valid qp-list
run "$q" --json qp list --stalled 0.5
expect_rc 0; expect_valid qp-list
run "$q" --json qp post "$P1" --op send -s 64
expect_rc 0; expect_valid qp-post
expect_true "send: the peer's completion too" test "$(sch_jq '.post.peer_completion.opcode.name')" = RECV
run "$q" --json qp post "$P1" --op write -s 4096
expect_rc 0; expect_valid qp-post
run "$q" --json qp post "$P2" --op read -s 128
expect_rc 0; expect_valid qp-post
run "$q" --json qp destroy "$P2"
expect_rc 0; expect_valid qp-destroy
run "$q" --json qp post "$P1" --op send
expect_rc 1; expect_valid qp-post
expect_true "a failed completion with a diagnosis" test \
  "$(sch_jq '.post.completion.status.name')/$(sch_jq '.post | has("diagnosis")')" = "RETRY_EXC_ERR/true"
run "$q" --json qp query "$P1"
expect_rc 0; expect_valid qp-query
expect_true "ERR with last_error and diagnosis" test \
  "$(sch_jq '.qp.state.name')/$(sch_jq '.qp | has("last_error") and has("diagnosis")')" = "ERR/true"
run "$q" --json qp destroy --all
expect_rc 0; expect_valid qp-destroy
expect_true "the holder exits" test "$(sch_jq '.holder_exits')" = true
eventually 10 bash -c '! pgrep -x qpscope-holder' || bad "the holder did not exit within 10 s"
run "$q" --json qp destroy --all   # no holder any more
expect_rc 1; expect_valid error

# sch_pair LOG SERVER-ARGS... -- CLIENT-ARGS...: a server in the background
# (its stdout in LOG), then the client (run); $sch_server_rc is the server's.
sch_pair() {
  local cmd=$1 log=$2 server_args=() ; shift 2
  while [ "$1" != -- ]; do server_args+=("$1"); shift; done; shift
  "$q" --json "$cmd" -d rxe0 --timeout 20 "${server_args[@]}" >"$log" 2>"$log.err" &
  local server=$!
  # rdma_cm (--cm) resolves the address of rxe0's netdev, not loopback.
  local host=127.0.0.1
  [[ " $* " == *" --cm "* ]] && host=192.0.2.1
  run timeout 180 "$q" --json "$cmd" "$host" -d rxe0 --timeout 20 "$@"
  wait "$server"; sch_server_rc=$?
}

case_ "schemas: ping-pong, both sides"
for args in "-n 100 -s 64" "-n 100 -s 2:64 --histogram" "--op read -n 100" "--transport ud -n 100" "-D 1 -s 64" \
  "--threads 2 -n 100 -s 2:64" "--threads 2 --op read -n 100"; do
  # shellcheck disable=SC2086 # $args is a list of options
  sch_pair ping-pong "$sch_tmp/server.json" -- $args
  expect_true "ping-pong $args: client 0, server 0 (got $rc, $sch_server_rc)" test "$rc/$sch_server_rc" = 0/0
  expect_valid ping-pong
  expect_valid_file ping-pong "$sch_tmp/server.json"
done

case_ "schemas: a ping-pong cut short gives a partial report that validates"
"$q" ping-pong -d rxe0 --timeout 3 >/dev/null 2>&1 &
sch_server=$!
sch_in_run() { "$q" --json qp list --pid "$1" --state rts | jq -e '.qps | length == 1'; }
( eventually 60 sch_in_run "$sch_server"; sleep 1; kill -9 "$sch_server" ) &
sch_killer=$!
run timeout 60 "$q" --json ping-pong 127.0.0.1 -d rxe0 -n 100000000 --timeout 3
wait "$sch_server" "$sch_killer" 2>/dev/null
expect_rc 3; expect_valid ping-pong
expect_true "aborted, with a reason" test "$(sch_jq '.test.aborted and (.test.abort_reason | length > 0)')" = true

case_ "schemas: bw, both sides"
for args in "-n 200 -s 4096" "--bidir --op send -n 200 -s 1024:2048" "--op read -n 200 -s 1024" \
  "--threads 2 -n 200 -s 4096" "--threads 2 --bidir -n 200 -s 1024"; do
  # shellcheck disable=SC2086
  sch_pair bw "$sch_tmp/server.json" -- $args
  expect_true "bw $args: client 0, server 0 (got $rc, $sch_server_rc)" test "$rc/$sch_server_rc" = 0/0
  expect_valid bw
  expect_valid_file bw "$sch_tmp/server.json"
done

case_ "schemas: a bw --threads 2 cut short gives a partial report that validates"
"$q" bw -d rxe0 --threads 2 --timeout 3 >/dev/null 2>&1 &
sch_server=$!
sch_in_run2() { "$q" --json qp list --pid "$1" --state rts | jq -e '.qps | length == 2'; }
( eventually 60 sch_in_run2 "$sch_server"; sleep 1; kill -9 "$sch_server" ) &
sch_killer=$!
run timeout 120 "$q" --json bw 127.0.0.1 -d rxe0 --threads 2 -s 4096 -D 600 --timeout 3
wait "$sch_server" "$sch_killer" 2>/dev/null
expect_rc 3; expect_valid bw
expect_true "aborted, with a reason" test "$(sch_jq '.test.aborted and (.test.abort_reason | length > 0)')" = true

case_ "schemas: path, both sides, healthy and failing"
sch_pair path "$sch_tmp/server.json" -- --probes 5 --burst 20 --pings 10
expect_true "path: client 0, server 0 (got $rc, $sch_server_rc)" test "$rc/$sch_server_rc" = 0/0
expect_valid path
expect_valid_file path "$sch_tmp/server.json"
expect_true "client: healthy, two directions, path.roce ok both ways" test \
  "$(sch_jq '[.healthy, (.directions | length), ([.findings[] | select(.id == "path.roce") | .status] | join(","))] | join("/")')" = "true/2/ok,ok"
expect_true "server: the client's parameters and round trip" test \
  "$(jq -r '[.role, .probes, .burst, .pings, .round_trip.sent] | join("/")' "$sch_tmp/server.json")" = "server/5/20/10/10"
# rxe0's active MTU is 1024: mtu>=4096 is missed, the client exits 1 (the
# server has no --expect of its own); a traffic class that arrives as sent.
# The QP options too: the probes' SL and flow label, and the RC timeout the
# round trip is judged against, adopted by the server.
sch_pair path "$sch_tmp/server.json" -- --probes 5 --burst 20 --pings 10 --tclass 104 --expect 'mtu>=4096,loss<=0' \
  --sl 2 --flow-label 9 --qp-timeout 16 --retry-cnt 3
expect_true "path --expect mtu>=4096: client 1, server 0 (got $rc, $sch_server_rc)" test "$rc/$sch_server_rc" = 1/0
expect_valid path
expect_valid_file path "$sch_tmp/server.json"
expect_true "not healthy, path.expect fail then ok, traffic class 104 received" test \
  "$(sch_jq '[.healthy, ([.findings[] | select(.id == "path.expect") | .status] | join(",")), .directions[1].traffic_class_received] | join("/")')" = "false/fail,ok/104"
expect_true "both sides: SL 2, flow label 9, P_Key index 0, judged against ACK timeout code 16 and retry count 3" test \
  "$(sch_jq '[.sl, .flow_label, .pkey_index, .round_trip.ack_timeout_code, .round_trip.retry_cnt] | join(",")'),$(jq -r '[.sl, .flow_label, .round_trip.ack_timeout_code] | join(",")' "$sch_tmp/server.json")" = "2,9,0,16,3,2,9,16"
run timeout 30 "$q" path 192.0.2.1 --pkey-index 5 --timeout 5   # no -d; nobody serves: refused before that matters
expect_rc 2
expect_err_has "--pkey-index 5: rxe0 port 1's P_Key table has 1 entry (0 = 0xffff); valid are 0..0"
run "$q" path --sl 2
expect_rc 2
expect_err_has "--sl is the client's to set"
run "$q" --json path 127.0.0.1 -d rxe0 -p 18699 --timeout 1   # nobody serves there
expect_rc 3; expect_valid error
expect_true "kind timeout, command path" test "$(sch_jq '.error.kind')/$(sch_jq '.command')" = timeout/path

# (cm list with IDs in it: 42-connect validates its documents; perftest's
# listener and connections: 30-netlink.)
case_ "schemas: cm list, empty"
run "$q" --json cm list
expect_rc 0; expect_valid cm-list
expect_true "no ID listed" test "$(sch_jq '.cm_ids | length')" = 0

case_ "schemas: doctor, healthy and failing"
run timeout 120 "$q" --json doctor
expect_rc 0; expect_valid doctor
run timeout 120 "$q" --json doctor -d rxe0 -i 1 --no-loopback --expect rate=400 --interval 0.5 --strict
expect_rc 1; expect_valid doctor
expect_true "not healthy, port.link failed" test "$(sch_jq '.healthy'),$(sch_jq '[.findings[] | select(.id == "port.link") | .status] | join(",")')" = "false,fail"
run "$q" --json doctor --expect bogus=1
expect_rc 2; expect_valid error

case_ "schemas: error documents"
run "$q" --json ports -d nosuch
expect_rc 2; expect_valid error
expect_true "kind usage, command ports" test "$(sch_jq '.error.kind')/$(sch_jq '.command')" = usage/ports
run "$q" --json ping-pong 127.0.0.1 -d rxe0 -p 18699 --timeout 1   # nobody serves there
expect_rc 3; expect_valid error
expect_true "kind timeout, command ping-pong" test "$(sch_jq '.error.kind')/$(sch_jq '.command')" = timeout/ping-pong
run "$q" --json qp query 999999
expect_rc 2; expect_valid error
expect_true "command qp query" test "$(sch_jq '.command')" = "qp query"
run "$q" --json prots
expect_rc 2; expect_valid error
expect_true "no command named: command null" test "$(sch_jq '.command')" = null

case_ "schemas: nothing left behind"
expect_true "no holder process" bash -c '! pgrep -x qpscope-holder'
expect_true "nothing of ours in rdma resource show qp" no_qps_left
sch_done
