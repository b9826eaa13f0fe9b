# perftest's rdma_cm pair (-R) as the lab's cases start it (30-netlink,
# 27-doctor): the server, then, once rdma_cm has its listener, the client.
# perftest's own client sometimes dies before it connects (a segmentation
# fault in the CI run of stop 36, 2026-11-27, not reproduced since), which is
# a fault of perftest, not of the view under test: the pair is then stopped
# and started again, up to 3 tries, each shown. Sourced by a case file.

# pt_connected N: rdma_cm holds at least N IDs in CONNECT.
pt_connected() { [ "$(rdma -j resource show cm_id | jq '[.[] | select(.state == "CONNECT")] | length')" -ge "$1" ]; }
export -f pt_connected

# pt_pair_up N SECONDS TOOL ARGS... : starts `timeout SECONDS TOOL ARGS`
# (the server) and, once rdma_cm lists a listener, `timeout SECONDS TOOL
# ARGS 192.0.2.1` (the client), until N IDs are in CONNECT. Sets pt_pids
# (the two `timeout` processes: kill and wait them) and pt_listener (the
# server's own pid). If the function pt_on_listen is defined, it is called
# while the server listens alone. Returns 1 after 3 tries, with pt_why
# saying what the last one met; the failed tries' processes are gone.
pt_pair_up() {
  local n=$1 secs=$2 try
  shift 2
  for try in 1 2 3; do
    pt_pair_try "$n" "$secs" "$@" && return 0
    echo "    (perftest's pair, try $try: $pt_why)"
  done
  return 1
}

pt_pair_try() {
  local n=$1 secs=$2 p st=()
  shift 2
  pt_pids=()
  timeout "$secs" "$@" >/dev/null 2>&1 &
  pt_pids+=($!)
  if ! eventually 30 bash -c 'rdma resource show cm_id | grep -q "state LISTEN"'; then
    pt_why="perftest's server did not listen within 30 s"
  else
    pt_listener=$(pgrep -P "${pt_pids[0]}" -x "$1")
    if declare -F pt_on_listen >/dev/null; then pt_on_listen; fi
    timeout "$secs" "$@" 192.0.2.1 >/dev/null 2>&1 &
    pt_pids+=($!)
    # Connected, or the client is gone (then no waiting out the 30 s).
    # shellcheck disable=SC2016  # expanded by the inner bash
    if eventually 30 bash -c 'pt_connected "$1" || ! kill -0 "$2" 2>/dev/null' _ "$n" "${pt_pids[1]}" &&
      pt_connected "$n"; then
      return 0
    fi
    if kill -0 "${pt_pids[1]}" 2>/dev/null; then
      pt_why="perftest's pair did not connect within 30 s"
    else
      pt_why="perftest's client ended before the pair connected"
    fi
  fi
  kill "${pt_pids[@]}" 2>/dev/null
  for p in "${pt_pids[@]}"; do wait "$p" 2>/dev/null; st+=($?); done
  pt_why+=" (exit status of server, client: ${st[*]})"
  eventually 10 bash -c '! pgrep -x "$1"' _ "$1"
  return 1
}
