#!/usr/bin/env bash
# Inside the lab (bench/inspect-scale): wall time and peak RSS of the
# inspecting commands and of `rdma res show qp` with N QPs held on rxe0.
# The QPs are held by qp_churn processes that are never let go before the
# end: the first holds the first N, each next one the difference to the
# next N, so 60,000 QPs are created once, not 71,000.
# Prints, per N:
#   held N ROWS                      (ROWS: the lines of `rdma res show qp`)
#   m N RUN WHAT SECONDS MAXRSS_KIB  (one measurement; output to /dev/null)
#   m N RUN WHAT timeout -           (killed after TIMEOUT s)
#   c N WHAT INSTRUCTIONS SYSCALLS   (N <= COUNT_MAX: user-space instructions
#                                    under callgrind, system calls under
#                                    strace -f -c; "-" for one not counted)
# WHAT is one of rdma, list, json, stalled, cm, doctor, rdmafixed, listfixed
# (those two under setarch -R); counted: rdma, list.
# Usage: inspect-scale-guest.sh QPSCOPE QP_CHURN "N..." RUNS TIMEOUT [COUNT_MAX]
set -euo pipefail
q=$1 churn=$2 ns=$3 runs=$4 limit=$5 count_max=${6:-60000}
dir=$(mktemp -d /dev/shm/inspect-scale.XXXXXX)
pids=() tos=()
cleanup() {
  local fd
  for fd in "${tos[@]}"; do exec {fd}>&- || true; done
  for p in "${pids[@]}"; do wait "$p" || true; done
  rm -rf "$dir"
}
trap cleanup EXIT

# rxe's provider maps each QP's send and receive queue: two maps a QP,
# more than the default 65,530 allow at 60,000 QPs.
echo 1048576 >/proc/sys/vm/max_map_count

# measure WHAT ARGS...: one line "SECONDS MAXRSS_KIB", or "timeout -".
# timeout kills the process group (time and the command) after $limit s.
measure() {
  local what=$1
  shift
  rm -f "$dir/time"
  if timeout -s KILL "$limit" /usr/bin/time -f '%e %M' -o "$dir/time" "$@" >/dev/null 2>"$dir/err.$what" ||
    [ -s "$dir/time" ]; then
    # time writes "Command exited with non-zero status N" before its figures.
    tail -n 1 "$dir/time"
  else
    echo "timeout -"
  fi
}

# count WHAT ARGS...: "INSTRUCTIONS SYSCALLS" of one run, each "-" when
# its tool failed or took longer than $limit s (valgrind, strace: in PATH).
count() {
  shift
  local ir calls
  ir=$(timeout -s KILL "$limit" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | tail -n 1) || true
  rm -f "$dir/strace"
  timeout -s KILL "$limit" strace -f -c -o "$dir/strace" "$@" >/dev/null 2>&1 || true
  calls=$(awk '$NF == "total" { print $4 }' "$dir/strace" 2>/dev/null) || true
  echo "${ir:--} ${calls:--}"
}

held=0
for n in $ns; do
  add=$((n - held))
  if [ "$add" -gt 0 ]; then
    mkfifo "$dir/in.$n" "$dir/lines.$n"
    # qp_churn holds its one batch until a line (or EOF) comes on stdin.
    "$churn" rxe0 "$add" "$add" <"$dir/in.$n" >"$dir/lines.$n" 2>&1 &
    pids+=($!)
    exec {to}>"$dir/in.$n" {from}<"$dir/lines.$n"
    tos+=("$to")
    IFS= read -r -t 1800 -u "$from" line || true
    [ "$line" = "created $add" ] || { echo "qp_churn for $add more QPs said: $line" >&2; exit 1; }
    exec {from}<&-
    held=$n
  fi
  echo "held $n $(rdma res show qp | wc -l)"
  for r in $(seq "$runs"); do
    echo "m $n $r rdma $(measure rdma rdma res show qp)"
    echo "m $n $r list $(measure list "$q" qp list)"
    echo "m $n $r json $(measure json "$q" --json qp list)"
    echo "m $n $r stalled $(measure stalled "$q" qp list --stalled 1)"
    echo "m $n $r cm $(measure cm "$q" cm list)"
    echo "m $n $r doctor $(measure doctor "$q" doctor --no-loopback)"
    # The same two with the address space laid out alike in every run
    # (setarch -R): TCG then reuses its translations of the code from run
    # to run, as a real CPU needs none (setarch's own exec for both).
    echo "m $n $r rdmafixed $(measure rdmafixed setarch -R rdma res show qp)"
    echo "m $n $r listfixed $(measure listfixed setarch -R "$q" qp list)"
  done
  if [ "$n" -le "$count_max" ]; then
    echo "c $n rdma $(count rdma rdma res show qp)"
    echo "c $n list $(count list "$q" qp list)"
  fi
  for what in list json stalled cm doctor; do
    if grep -qv '^$' "$dir/err.$what" 2>/dev/null; then
      echo "stderr $n $what $(head -c 300 "$dir/err.$what" | tr '\n' ' ')"
    fi
  done
done
