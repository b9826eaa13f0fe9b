#!/usr/bin/env bash
# Inside the lab (bench/mesh-scaling): one qpscope-mesh run per N; prints
# "mesh N STARTUP_S REPORT_JSON" per run (the report inline, one line).
# Usage: mesh-scaling-guest.sh QPSCOPE_MESH "N..." "ARGS"
set -euo pipefail
mesh=$1 ns=$2 args=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for n in $ns; do
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  mpirun --oversubscribe --bind-to none -np "$n" "$mesh" $args -q -o "/dev/shm/mesh-$n.json" >/dev/null 2>"/dev/shm/mesh-$n.err" || true
  end=$(date +%s.%N)
  [ -s "/dev/shm/mesh-$n.json" ] || { echo "no report for N=$n: $(tail -3 "/dev/shm/mesh-$n.err")" >&2; continue; }
  rounds_s=$(jq '[.timings[].wall_s] | add' "/dev/shm/mesh-$n.json")
  echo "mesh $n $(awk -v e="$end" -v s="$start" -v r="$rounds_s" 'BEGIN { print e - s - r }') $(jq -c . "/dev/shm/mesh-$n.json")"
done
