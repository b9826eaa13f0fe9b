# Lab cases: a peer that is stopped (SIGSTOP), not killed, in the middle of
# a run. Its TCP connection stays open, and for RDMA writes and reads its
# kernel goes on completing our work requests, so only the heartbeats tell
# (src/net/heartbeat.hpp). The side still running ends within --timeout
# with exit 3, a partial report and a line saying the peer stopped
# answering; the stopped side, continued (SIGCONT), ends too. Both ways,
# with and without -d, as root and as a user who is not root.
# Sourced by tests/lab/run-all with $q set.

frozen_log=$(mktemp)
frozen_err=$(mktemp)
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
frozen_at=$(mktemp)
# freeze PID: stops PID 1 s into its run; $frozen_at says when.
freeze() { signal_in_run STOP "$1" "$frozen_at"; }
gone() { ! kill -0 "$1" 2>/dev/null; }
# thaw NAME PID: continues PID and expects it to end by itself within 20 s,
# with exit 1 or 3 (not a signal, not a hang).
thaw() {
  kill -CONT "$2"
  if eventually 20 gone "$2"; then
    wait "$2"; local rc=$?
    expect_true "$1: the continued side ends by itself with 1 or 3 (got $rc)" test "$rc" = 1 -o "$rc" = 3
  else
    bad "$1: the continued side still runs 20 s after SIGCONT"
    kill -9 "$2"; wait "$2"
  fi
}
# server_outlives_client: stops $client in its run, then waits (60 s at
# most) for $server to end; sets rc, elapsed (ms since the stop) and out.
server_outlives_client() {
  freeze "$client"
  # Polled, not a background `sleep 60; kill`: that sleep would outlive the
  # case and exit later while another case's peer is stopped.
  eventually 60 gone "$server" || kill -9 "$server" 2>/dev/null
  wait "$server"; rc=$?
  elapsed=$(ms_since_stamp "$frozen_at")
  out=$(cat "$frozen_log")
}
# expect_lost_peer WHO: $out is a partial report whose reason names the silence.
expect_lost_peer() {
  expect_true "$1: partial report, aborted because the peer stopped answering" python3 -c '
import json, sys
t = json.loads(sys.argv[1])["test"]
assert t["aborted"], t
assert "stopped answering" in t["abort_reason"] and "connection still open" in t["abort_reason"], t["abort_reason"]' "$out"
}

case_ "bw -D: the server (no -d, not root) is stopped mid-run; the client ends within --timeout"
"${nobody[@]}" "$q" --json bw -p 18661 --timeout 3 >"$frozen_log" 2>&1 &
server=$!
freeze "$server" &
freezer=$!
run timeout 120 "$q" --json bw 127.0.0.1 -p 18661 -d rxe0 -s 4096 -D 40 --timeout 3
wait "$freezer"
elapsed=$(ms_since_stamp "$frozen_at")
expect_rc 3
expect_true "the client ended ${elapsed} ms after the stop (--timeout 3 s; 40 s asked)" test "$elapsed" -le 8000
expect_lost_peer "client"
expect_true "the client's writes before the stop are in the report" python3 -c '
import json, sys; d = json.loads(sys.argv[1]); assert d["client_posts"][0]["messages"] > 0, d' "$out"
thaw "bw server" "$server"

case_ "bw: the client (no -d, not root) is stopped mid-run; the server, a passive target, ends within --timeout"
"$q" --json bw -d rxe0 -p 18662 --timeout 3 >"$frozen_log" 2>&1 &
server=$!
"${nobody[@]}" "$q" bw 127.0.0.1 -p 18662 -s 4096 -D 40 --timeout 3 >/dev/null 2>"$frozen_err" &
client=$!
server_outlives_client
expect_rc 3
expect_true "the server ended ${elapsed} ms after the stop (--timeout 3 s)" test "$elapsed" -le 8000
expect_lost_peer "server"
thaw "bw client" "$client"

case_ "ping-pong --op read: the client (-d rxe0, not root) is stopped; the server (no -d) ends within --timeout"
"$q" --json ping-pong --op read -p 18663 --timeout 3 >"$frozen_log" 2>&1 &
server=$!
"${nobody[@]}" "$q" ping-pong 127.0.0.1 -d rxe0 --op read -p 18663 -D 40 --timeout 3 >/dev/null 2>"$frozen_err" &
client=$!
server_outlives_client
expect_rc 3
expect_true "the server ended ${elapsed} ms after the stop (--timeout 3 s)" test "$elapsed" -le 8000
expect_lost_peer "ping-pong server"
thaw "ping-pong client" "$client"

case_ "ping-pong: the server (-d rxe0) is stopped; the client (no -d, not root) ends within --timeout"
"$q" ping-pong -d rxe0 -p 18664 --timeout 3 >/dev/null 2>&1 &
server=$!
freeze "$server" &
freezer=$!
run timeout 120 "${nobody[@]}" "$q" --json ping-pong 127.0.0.1 -p 18664 -D 40 --timeout 3
wait "$freezer"
elapsed=$(ms_since_stamp "$frozen_at")
expect_rc 3
expect_true "the client ended ${elapsed} ms after the stop (--timeout 3 s)" test "$elapsed" -le 8000
expect_true "the client's partial report says why" python3 -c '
import json, sys; t = json.loads(sys.argv[1])["test"]; assert t["aborted"] and t["abort_reason"], t' "$out"
thaw "ping-pong server" "$server"

case_ "bw --threads 2: the server is stopped mid-run; every client thread ends within --timeout"
"$q" bw -d rxe0 -p 18665 --threads 2 --timeout 3 >/dev/null 2>&1 &
server=$!
freeze "$server" &
freezer=$!
run timeout 120 "$q" --json bw 127.0.0.1 -p 18665 --threads 2 -s 4096 -D 40 --timeout 3
wait "$freezer"
elapsed=$(ms_since_stamp "$frozen_at")
expect_rc 3
expect_true "the client ended ${elapsed} ms after the stop (--timeout 3 s)" test "$elapsed" -le 8000
expect_lost_peer "threaded client"
thaw "threaded bw server" "$server"

case_ "qp: a stopped holder is named, within its 10 s, never waited for"
run "$q" --json qp create -d rxe0
held=$(jq -r '.qps[0].qpn.raw' <<<"$out")
holder=$(pgrep -x qpscope-holder | head -1)
kill -STOP "$holder"
date +%s%N >"$frozen_at"
run timeout 60 "$q" qp query "$held"
elapsed=$(ms_since_stamp "$frozen_at")
expect_rc 3
expect_err_has "the holder (pid $holder) did not answer the query request within 10 s: it is stopped or hung"
expect_err_lines 1
expect_true "named after ${elapsed} ms" test "$elapsed" -le 15000
kill -CONT "$holder"
run "$q" qp destroy --all
expect_rc 0
expect_true "nothing of ours left in rdma resource show qp" eventually 10 no_qps_left
# Two sides with different --timeouts (issue 39): each side's goes with its
# parameters, both beat at a quarter of the smaller, each judges the other by
# its own. A 0.5 s side against a default (10 s) one was called stopped at
# once: the default side beat once a second.
# mismatched NAME CMD SERVER_ARGS -- CLIENT_ARGS: both sides exit 0, the
# client measured something.
# listens PORT: returns once a server listens on TCP PORT (60 s at most).
# A client with -t 0.5 gives up connecting after 0.5 s: under load its
# server took longer to listen, and then waited for ever for a client.
listens() {
  eventually 60 bash -c "ss -Hltn 'sport = :$1' | grep -q ." || bad "no server listened on TCP $1 within 60 s"
}
mismatched() {
  local name=$1 cmd=$2 server_args=() server; shift 2
  while [ "$1" != -- ]; do server_args+=("$1"); shift; done; shift
  "$q" --json "$cmd" -d rxe0 -p 18667 "${server_args[@]}" >"$frozen_log" 2>"$frozen_err" &
  server=$!
  listens 18667
  run timeout 120 "$q" --json "$cmd" 127.0.0.1 -p 18667 "$@"
  # A server whose client never came waits for one: bounded here.
  eventually 60 gone "$server" || { kill -9 "$server" 2>/dev/null; bad "$name: the server still ran 60 s after its client"; }
  wait "$server"; local server_rc=$?
  expect_true "$name: client 0, server 0 (got $rc, $server_rc; $(head -c 300 "$frozen_err"))" test "$rc/$server_rc" = 0/0
  expect_true "$name: not aborted, and measured" jq_true '(.test.aborted | not) and (((.client // [])[0].samples // 0) + ((.client_posts // [])[0].messages // 0) > 0)' <<<"$out"
}

case_ "timeouts that differ: ping-pong, client -t 0.5 against a default server, and the reverse"
mismatched "client 0.5 s, server 10 s" ping-pong -- -D 3 -t 0.5
mismatched "client 10 s (no -d), server 0.5 s" ping-pong -t 0.5 -- -D 3

case_ "timeouts that differ: bw, client -t 0.5 against a default server, and the reverse"
mismatched "client 0.5 s, server 10 s" bw -- -s 4096 -D 3 -t 0.5
mismatched "client 10 s, server 0.5 s" bw -t 0.5 -- -s 4096 -D 3

case_ "timeouts that differ: a stopped server is named by the client's own (smaller) limit"
"$q" ping-pong -d rxe0 -p 18668 >/dev/null 2>&1 &
server=$!
listens 18668
freeze "$server" &
freezer=$!
run timeout 120 "$q" --json ping-pong 127.0.0.1 -p 18668 -D 40 --timeout 1
wait "$freezer"
elapsed=$(ms_since_stamp "$frozen_at")
expect_rc 3
expect_true "the client names the silence by its own 1 s, not the server's 10 s (after ${elapsed} ms)" \
  jq_true '.test.abort_reason | contains("no heartbeat for 1000 ms")' <<<"$out"
thaw "ping-pong server (10 s)" "$server"

rm -f "$frozen_log" "$frozen_err" "$frozen_at"
