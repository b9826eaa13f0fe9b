#!/usr/bin/env bash
# Runs inside the lab (see bench/latency): interleaved qpscope ping-pong and
# perftest runs on rxe0, then peak resident memory of long client runs.
# Ops: send, write, read (2 bytes, ib_<op>_lat) and the 8-byte atomics fadd
# and cas (ib_atomic_lat -A FETCH_AND_ADD or CMP_AND_SWAP; it has no -s: its
# operand is 8 bytes).
# Prints one machine-readable line per measurement:
#   lat <op> <tool> <pair> <value_us>   the loop period's median: qpscope's
#                                       loop period p50, perftest's t_typical
#   rt <op> qpscope <pair> <value_us>   qpscope's round trip p50 of the same run
#   clocksource <name>                  the guest kernel's current clocksource
#   clock <name> <ns_min> <ns_median>   one read's cost (bench/clock-cost.c)
#   rss <iterations> <kib>
set -u
q=$1 pairs=$2 iters=$3 mem_iters=$4 ops=${5:-send write read fadd cas} pin=${6:-1} clock_cost=${7:-}
[ "$mem_iters" = none ] && mem_iters=
# pin=1: the server on CPU 0, the client on CPU 1, for both tools (taskset
# for perftest, -c for qpscope), so neither the processes nor the Soft-RoCE
# work they raise (on the CPU that posts or receives) move between CPUs.
if [ "$pin" = 1 ]; then
  srv_pin=(taskset -c 0) cli_pin=(taskset -c 1) srv_c=(-c 0) cli_c=(-c 1)
else
  srv_pin=() cli_pin=() srv_c=() cli_c=()
fi

# The message size of an op: 2 bytes, the atomics' 8-byte operand.
op_size() { case $1 in fadd | cas) echo 8 ;; *) echo 2 ;; esac; }

# perftest's command for an op: ib_<op>_lat -s 2, or ib_atomic_lat -A TYPE.
perftest_cmd() {
  case $1 in
    fadd) echo "ib_atomic_lat -A FETCH_AND_ADD" ;;
    cas) echo "ib_atomic_lat -A CMP_AND_SWAP" ;;
    *) echo "ib_$1_lat -s 2" ;;
  esac
}

# perftest's t_typical for one run of the op (its table row of that size).
perftest_typical() {
  local op=$1 out cmd
  read -r -a cmd <<<"$(perftest_cmd "$op")"
  "${srv_pin[@]}" timeout 120 "${cmd[@]}" -x 1 -d rxe0 -n "$iters" -p 18515 >/dev/null 2>&1 &
  local srv=$!
  sleep 2
  out=$("${cli_pin[@]}" timeout 120 "${cmd[@]}" -x 1 -d rxe0 -n "$iters" -p 18515 127.0.0.1 2>/dev/null)
  wait "$srv" 2>/dev/null
  awk -v size="$(op_size "$op")" '$1 == size && NF >= 5 { print $5 }' <<<"$out" | tail -n 1
}

# qpscope's loop period p50 (perftest's definition) and round trip p50 for
# the same run, in µs: "PERIOD ROUND_TRIP".
qpscope_p50() {
  local op=$1 out
  "$q" ping-pong -d rxe0 "${srv_c[@]}" --timeout 30 >/dev/null 2>&1 &
  local srv=$!
  out=$(timeout 120 "$q" --json ping-pong 127.0.0.1 -d rxe0 "${cli_c[@]}" --op "$op" -s "$(op_size "$op")" -n "$iters" --timeout 30)
  wait "$srv" 2>/dev/null
  python3 -c 'import json,sys; d = json.loads(sys.argv[1])
print(d["client_loop_period"][0]["p50_ns"] / 1000, d["client"][0]["p50_ns"] / 1000)' "$out"
}

# qpscope_line OP PAIR: both of qpscope's lines for one run.
qpscope_line() {
  local v
  v=$(qpscope_p50 "$1")
  echo "lat $1 qpscope $2 ${v% *}"
  echo "rt $1 qpscope $2 ${v#* }"
}

# The clock: qpscope reads clock_gettime(CLOCK_MONOTONIC_RAW) here (no
# invariant TSC in CPUID), perftest rdtsc; what one read of each costs.
echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
[ -n "$clock_cost" ] && "${cli_pin[@]}" "$clock_cost"

# Peak RSS of the client: flat in the iteration count.
for n in $mem_iters; do
  "$q" ping-pong -d rxe0 --timeout 60 >/dev/null 2>&1 &
  srv=$!
  kib=$(python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$q" ping-pong 127.0.0.1 -d rxe0 -s 2 -n "$n" -w 0 --timeout 60)
  wait "$srv"
  echo "rss $n $kib"
done

for op in $ops; do
  for pair in $(seq "$pairs"); do
    # Alternate which tool goes first, so neither always runs right after
    # the other's run.
    if ((pair % 2)); then
      qpscope_line "$op" "$pair"
      echo "lat $op perftest $pair $(perftest_typical "$op")"
    else
      echo "lat $op perftest $pair $(perftest_typical "$op")"
      qpscope_line "$op" "$pair"
    fi
  done
done

