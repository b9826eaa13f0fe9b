#!/usr/bin/env bash
# Inside the lab (bench/watch-cost): the watch's CPU per look and its RSS
# with N QPs held on rxe0, then its RSS through a churn of 10,000 QPs.
# Prints, per N:
#   cost N LOOKS CPU_1 CPU_K RSS_KIB   (CPU in seconds, user + system, of a
#                                       watch of 1 look and of 1 + LOOKS)
# and for the churn:
#   churn BATCH RSS_AFTER_5000 RSS_AFTER_10000 LOOKS_SEEN QP_CREATED QP_DESTROYED
# Usage: watch-cost-guest.sh QPSCOPE QP_CHURN "N..." LOOKS
set -euo pipefail
q=$1 churn=$2 ns=$3 looks=$4
dir=$(mktemp -d /dev/shm/watch-cost.XXXXXX)
trap 'rm -rf "$dir"' EXIT

# cpu_of ARGS...: "USER+SYS MAXRSS_KIB" of `qpscope --json watch -d rxe0 ARGS`.
cpu_of() {
  /usr/bin/time -f '%U %S %M' -o "$dir/time" "$q" --json watch -d rxe0 "$@" >"$dir/out" 2>"$dir/err" ||
    { echo "watch $* failed: $(tail -2 "$dir/err")" >&2; exit 1; }
  awk '{printf "%.3f %d\n", $1 + $2, $3}' "$dir/time"
}

# looks_at URL: the watch's looks so far (its /metrics).
looks_at() { curl -sf --max-time 10 "$1" | sed -n 's/^qpscope_watch_looks_total \([0-9]*\)$/\1/p'; }
# after_two_looks URL: returns once the watch has taken two looks since.
after_two_looks() {
  local n; n=$(looks_at "$1")
  for _ in $(seq 600); do
    [ "$(looks_at "$1")" -gt $((${n:-0} + 1)) ] && return 0
    sleep 0.1
  done
  echo "the watch took no two looks in a minute" >&2; exit 1
}

for n in $ns; do
  # qp_churn holds its one batch of N until a line comes on stdin.
  mkfifo "$dir/in" "$dir/lines"
  "$churn" rxe0 "$n" "$n" <"$dir/in" >"$dir/lines" 2>&1 &
  pid=$!
  exec {to}>"$dir/in" {from}<"$dir/lines"
  IFS= read -r -t 600 -u "$from" line || true
  [ "$line" = "created $n" ] || { echo "qp_churn for N=$n said: $line" >&2; exit 1; }
  # (no process substitution: the guest has no /dev/fd)
  got=$(cpu_of --interval 0.5 --count 1); read -r one _ <<<"$got"
  got=$(cpu_of --interval 0.5 --count $((looks + 1))); read -r k rss <<<"$got"
  echo "cost $n $looks $one $k $rss"
  echo next >&"$to"
  IFS= read -r -t 600 -u "$from" line || true  # "done N": the batch destroyed
  exec {to}>&- {from}<&-
  wait "$pid" || true
  rm -f "$dir/in" "$dir/lines"
done

# The churn: 10 batches of 1,000, each held until the watch has looked at
# it twice, so every QP is seen created and destroyed.
"$q" --json watch -d rxe0 --interval 0.2 --prometheus 127.0.0.1:0 >"$dir/churn" 2>"$dir/churn.err" &
w=$!
for _ in $(seq 600); do grep -q 'http://127.0.0.1:[0-9]*/metrics' "$dir/churn" && break; sleep 0.1; done
url=$(grep -o -m1 'http://127\.0\.0\.1:[0-9]*/metrics' "$dir/churn")
mkfifo "$dir/in" "$dir/lines"
"$churn" rxe0 10000 1000 <"$dir/in" >"$dir/lines" 2>&1 &
pid=$!
exec {to}>"$dir/in" {from}<"$dir/lines"
batches=0 warm=''
while IFS= read -r -t 600 -u "$from" line && [[ $line == "created "* ]]; do
  batches=$((batches + 1))
  after_two_looks "$url"
  [ "$batches" = 5 ] && warm=$(awk '/^VmRSS:/ {print $2}' "/proc/$w/status")
  echo next >&"$to"
done
exec {to}>&- {from}<&-
wait "$pid" || true
after_two_looks "$url"
end=$(awk '/^VmRSS:/ {print $2}' "/proc/$w/status")
seen=$(looks_at "$url")
kill -TERM "$w"; wait "$w" || true
created=$(grep -F '"comm":"qp_churn"' "$dir/churn" | grep -cF '"kind":"qp_created"' || true)
destroyed=$(grep -F '"comm":"qp_churn"' "$dir/churn" | grep -cF '"kind":"qp_destroyed"' || true)
echo "churn 1000 $warm $end $seen $created $destroyed"
