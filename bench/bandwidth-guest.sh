#!/usr/bin/env bash
# Runs inside the lab (see bench/bandwidth): interleaved qpscope bw and
# perftest runs on rxe0, then peak resident memory of duration runs.
# Prints one machine-readable line per measurement:
#   bw <case> <tool> <pair> <messages_per_s>
#   rss <seconds> <kib>
set -u
q=$1 pairs=$2 iters=$3 mem_secs=$4 only=${5:-.}
[ "$mem_secs" = none ] && mem_secs=

# case name | qpscope op and args | perftest tool and args
cases=(
  "write-64K|--op write -s 64K|ib_write_bw -s 65536"
  "send-64K|--op send -s 64K|ib_send_bw -s 65536"
  "read-64K|--op read -s 64K|ib_read_bw -s 65536"
  "write-64B|--op write -s 64|ib_write_bw -s 64"
  "write-64K-tuned|--op write -s 64K --tx-depth 256 --post-list 32 --cq-mod 32|ib_write_bw -s 65536 -t 256 -l 32 -Q 32"
  "send-64K-tuned|--op send -s 64K --tx-depth 256 --post-list 32 --cq-mod 32|ib_send_bw -s 65536 -t 256 -l 32 -Q 32"
  "read-64K-tuned|--op read -s 64K --tx-depth 256 --post-list 32 --cq-mod 32|ib_read_bw -s 65536 -t 256 -l 32 -Q 32"
  "write-64B-tuned|--op write -s 64 --tx-depth 256 --post-list 32 --cq-mod 32|ib_write_bw -s 64 -t 256 -l 32 -Q 32"
  # Past one core: two pinned threads (bw --threads) against one perftest
  # process, which has no threads of its own.
  "read-64K-threads2|--op read -s 64K --threads 2|ib_read_bw -s 65536"
  "write-64K-threads2|--op write -s 64K --threads 2|ib_write_bw -s 65536"
  # The 8-byte atomics at both tools' defaults (ib_atomic_bw has no -s: its
  # operand is 8 bytes); messages per second is the figure, as above.
  "fadd-8B|--op fadd -s 8|ib_atomic_bw -A FETCH_AND_ADD"
  "cas-8B|--op cas -s 8|ib_atomic_bw -A CMP_AND_SWAP"
)

# perftest's average message rate (its MsgRate column, Mpps) in messages/s.
perftest_rate() {
  local args=$1 out
  # shellcheck disable=SC2086 # word-split the argument list
  timeout 300 $args -x 1 -d rxe0 -n "$iters" -p 18515 >/dev/null 2>&1 &
  local srv=$!
  for _ in $(seq 50); do ss -ltn | grep -q ':18515 ' && break; sleep 0.1; done
  # shellcheck disable=SC2086
  out=$(timeout 300 $args -x 1 -d rxe0 -n "$iters" -p 18515 127.0.0.1 2>&1)
  wait "$srv" 2>/dev/null
  # The last table row; else what perftest said (the summary counts it missing).
  awk '$1 ~ /^[0-9]+$/ && NF >= 5 { r = $5 } END { if (r != "") printf "%.1f\n", r * 1e6 }' <<<"$out" | grep . ||
    echo "failed: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
}

qpscope_rate() {
  local args=$1 out
  "$q" bw -d rxe0 --timeout 60 >/dev/null 2>&1 &
  local srv=$!
  # shellcheck disable=SC2086
  out=$(timeout 300 "$q" --json bw 127.0.0.1 -d rxe0 $args -n "$iters" --timeout 60)
  wait "$srv" 2>/dev/null
  python3 -c 'import json,sys; print(json.loads(sys.argv[1])["client_posts"][0]["messages_per_s"])' "$out"
}

# Peak RSS of the client in duration mode: flat in the run's length.
for s in $mem_secs; do
  "$q" bw -d rxe0 --timeout 60 >/dev/null 2>&1 &
  srv=$!
  kib=$(python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$q" bw 127.0.0.1 -d rxe0 -s 64K -D "$s" --timeout 60)
  wait "$srv"
  echo "rss $s $kib"
done

for c in "${cases[@]}"; do
  IFS='|' read -r name qargs pargs <<<"$c"
  [[ $name =~ $only ]] || continue
  for pair in $(seq "$pairs"); do
    # Alternate which tool goes first, so neither always runs right after
    # the other's run.
    if ((pair % 2)); then
      echo "bw $name qpscope $pair $(qpscope_rate "$qargs")"
      echo "bw $name perftest $pair $(perftest_rate "$pargs")"
    else
      echo "bw $name perftest $pair $(perftest_rate "$pargs")"
      echo "bw $name qpscope $pair $(qpscope_rate "$qargs")"
    fi
  done
done
