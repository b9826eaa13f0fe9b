#!/usr/bin/env bash
# Runs inside the lab (see bench/cost): the client of each case under
# valgrind --tool=callgrind (the server natively), qpscope and perftest, at
# two message counts, REPS times each; then reduces every callgrind file.
# Prints one machine-readable line per measurement:
#   poll <object> <function>          the provider's poll_cq, as callgrind names it
#   post <object> <function>          the provider's post_send
#   loop <case> <tool> <pattern>      the measured loop (callgrind --toggle-collect)
#   recv <object> <function>          the provider's post_recv
#   complete <object> <function>      the provider's extended post (qp_ex->wr_complete)
#   start <object> <function>         the provider's extended poll (cq_ex->start_poll)
#   cadence <case> <tool> <signalling>  one signalled send WR in <signalling> (bw), as run
#   run <case> <tool> <rep> <messages> <total_ir> <spins> <ours> <provider> <libc> <other>
#       (perftest's clock calibration inside the counted function left out)
#   clock <case> <tool> <rep> <messages> <calls> <ir> <ours> <provider> <libc> <other> <unplaced> <functions>
#       what was left out: perftest's get_cpu_mhz inside the counted function
#   evidence <case> <tool> <rep> <messages> <post_send calls> <post_recv calls> <poll_cq calls> <spins>
#            <wr_complete calls> <start_poll calls>
#       inside the counted function (bench/cost refuses a case without posts or polls;
#       a post is a post_send or a wr_complete, a poll a poll_cq or a start_poll)
#   fn <case> <tool> <class> <calls_per_msg> <self_ir_per_msg> <function>   (rep 1, N2 - N1)
#   call <case> <tool> <caller_class> <calls_per_msg> <callee>   (rep 1, N2 - N1; allocation, locks)
#   sys <case> <tool> <calls_per_msg> <syscall>   (strace -f -c, N2 - N1)
#   noreport <case> <tool> <rep> <messages>   (perftest could not print its report; the count stands)
#   fail <case> <tool> <rep> <messages> <what>
# <spins> is the busy-wait count: calls into the provider's poll_cq or
# start_poll (CQ waits), or, for write ping-pong (which polls memory), the
# executions of the client binary's hottest instruction (its wait loop).
# The extended entry points are found by bench/verbs-cost.c (its sym
# lines, from a live ibv_qp_ex and ibv_cq_ex) when QPSCOPE's directory has
# it as verbs-cost (bench/cost builds it there); without it only the
# legacy ones are known.
# Usage: cost-guest.sh QPSCOPE N1 N2 REPS [CASE_REGEX]
set -euo pipefail
q=$(realpath "$1") n1=$2 n2=$3 reps=$4 only=${5:-.}
here=$(cd "$(dirname "$0")" && pwd)
out=/tmp/cost
mkdir -p "$out"

# case | qpscope client arguments | perftest tool and arguments
# Completion cadence (bw: one signalled WR in N): qpscope's default is 64
# (--cq-mod, min(64, --tx-depth 128)), ib_write_bw's 100 (--cq-mod); the
# plain bw cases run each tool at its own default, the -cq64 and -cq100
# cases both tools at one cadence (each also at the other's).
cases=(
  "lat-send-2|ping-pong --op send -s 2|ib_send_lat -s 2"
  "lat-write-2|ping-pong --op write -s 2|ib_write_lat -s 2"
  "lat-read-2|ping-pong --op read -s 2|ib_read_lat -s 2"
  "lat-send-2-cm|ping-pong --op send -s 2 --cm|ib_send_lat -s 2 -R"
  # The 8-byte fetch-and-add (ib_atomic_lat has no -s: its operand is 8 bytes).
  "lat-fadd-8|ping-pong --op fadd -s 8|ib_atomic_lat -A FETCH_AND_ADD"
  "bw-write-64|bw --op write -s 64|ib_write_bw -s 64"
  "bw-write-64-cq64|bw --op write -s 64 --cq-mod 64|ib_write_bw -s 64 --cq-mod 64"
  "bw-write-64-cq100|bw --op write -s 64 --cq-mod 100|ib_write_bw -s 64 --cq-mod 100"
  "bw-write-64K|bw --op write -s 64K|ib_write_bw -s 65536"
  "bw-write-64K-cq64|bw --op write -s 64K --cq-mod 64|ib_write_bw -s 65536 --cq-mod 64"
  "bw-write-64K-cq100|bw --op write -s 64K --cq-mod 100|ib_write_bw -s 65536 --cq-mod 100"
)

# The cadence a bw run used, as the tool was told: qpscope's --cq-mod or
# its default (64); perftest's from its own header ("CQ Moderation").
cadence() {
  local name=$1 tool=$2 args=$3 outfile=$4 v
  [[ $name == bw-* ]] || { echo "cadence $name $tool ping-pong"; return; }
  if [[ $tool == qpscope ]]; then
    v=$(sed -n 's/.*--cq-mod \([0-9]*\).*/\1/p' <<<"$args")
    echo "cadence $name $tool ${v:-64}"
  else
    v=$(sed -n 's/^ *CQ Moderation *: *\([0-9]*\).*/\1/p' "$outfile" | head -n 1)
    echo "cadence $name $tool ${v:-unknown}"
  fi
}

# The provider's poll_cq and post_send: ibv_poll_cq() and ibv_post_send()
# are inline calls through context->ops, static in librxe (stripped), so
# callgrind names them by address: find the addresses from a live context.
poll=$(python3 - <<'PY'
import ctypes
v = ctypes.CDLL("libibverbs.so.1")
v.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
v.ibv_get_device_name.restype = ctypes.c_char_p
v.ibv_get_device_name.argtypes = [ctypes.c_void_p]
v.ibv_open_device.restype = ctypes.c_void_p
v.ibv_open_device.argtypes = [ctypes.c_void_p]
n = ctypes.c_int()
devs = v.ibv_get_device_list(ctypes.byref(n))
dev = next(devs[i] for i in range(n.value) if v.ibv_get_device_name(devs[i]) == b"rxe0")
ctx = v.ibv_open_device(dev)
# struct ibv_context { device; struct ibv_context_ops ops; }: poll_cq is
# ops' 12th pointer, post_send its 26th, post_recv its 27th (verbs.h).
for what, index in (("poll", 11), ("post", 25), ("recv", 26)):
    fp = ctypes.c_void_p.from_address(ctx + 8 + index * 8).value
    for line in open("/proc/self/maps"):
        f = line.split()
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        if lo <= fp < hi and len(f) >= 6:
            # Lowest mapping of that file = its load base (ELF vaddr 0).
            base = min(int(l.split()[0].split("-")[0], 16) for l in open("/proc/self/maps") if l.split()[-1] == f[-1])
            print(f"{what} {f[-1]} 0x{fp - base:016x}")
            break
PY
)
echo "$poll"
COST_POLL=$(sed -n 's/^poll //p' <<<"$poll") COST_POST=$(sed -n 's/^post //p' <<<"$poll")
COST_RECV=$(sed -n 's/^recv //p' <<<"$poll")
# The extended verbs' entry points (qpscope's ping-pong posts with
# ibv_wr_* and polls with ibv_start_poll where the device has them): the
# same offsets bench/verbs-cost prints, read from its extended variant B
# (a few messages) by dladdr.
COST_COMPLETE="" COST_START=""
if [[ -x $(dirname "$q")/verbs-cost ]]; then
  syms=$(timeout 120 "$(dirname "$q")/verbs-cost" rxe0 B 1 2>/dev/null | grep '^sym ' || true)
  COST_COMPLETE=$(awk '$3 == "wr_complete" { print $4, $2; exit }' <<<"$syms")
  COST_START=$(awk '$3 == "start_poll" { print $4, $2; exit }' <<<"$syms")
  if [[ -n $COST_COMPLETE ]]; then echo "complete $COST_COMPLETE"; fi
  if [[ -n $COST_START ]]; then echo "start $COST_START"; fi
fi
export COST_POLL COST_POST COST_RECV COST_COMPLETE COST_START

waitport() {
  for _ in $(seq 300); do ss -ltn | grep -q ":$1 " && return 0; sleep 0.1; done
  return 1
}
# waitserver PORT ARGS: perftest with -R listens through rdma_cm only (no
# TCP socket to see): its listener's rdma_cm ID instead.
waitserver() {
  if [[ $2 == *" -R"* ]]; then
    for _ in $(seq 300); do rdma res show cm_id 2>/dev/null | grep -q "state LISTEN.*:$1 " && return 0; sleep 0.1; done
    return 1
  fi
  waitport "$1"
}

# A server whose client is gone has up to 10 s to finish its report; then
# it is killed (a perftest server waits for ever for a client that failed).
end_server() {
  local _
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# The server's arguments for a case's client arguments (the command, and
# --cm when the client connects through rdma_cm), and the address the
# client connects to (rdma_cm needs one of rxe0's netdev, not loopback).
server_args() { if [[ $1 == *--cm* ]]; then echo "${1%% *} --cm"; else echo "${1%% *}"; fi; }
server_host() { if [[ $1 == *--cm* || $1 == *" -R"* ]]; then echo 192.0.2.1; else echo 127.0.0.1; fi; }

# One client run under callgrind, up to 3 tries (a run that fails for
# another reason than perftest's report, below, is tried again).
measure() {
  local _
  for _ in 1 2 3; do
    measure_once "$@" && return 0
  done
  return 0
}

measure_once() {
  local name=$1 tool=$2 rep=$3 n=$4 qargs=$5 pargs=$6 srv rc=0
  local file=$out/$name.$tool.$rep.$n.cg
  local vg=(valgrind --tool=callgrind --dump-line=no --compress-pos=no --callgrind-out-file="$file")
  # Only the measured loop, everything it calls included (see discover).
  [[ -n ${loop[$name.$tool]:-} ]] && vg+=("--toggle-collect=${loop[$name.$tool]}")
  # Write ping-pong waits by reading memory, no call: count instructions.
  [[ $name == lat-write* ]] && vg+=(--dump-instr=yes)
  if [[ $tool == qpscope ]]; then
    # shellcheck disable=SC2046,SC2086 # word-split the argument lists
    timeout 900 "$q" $(server_args "$qargs") -d rxe0 --timeout 600 >/dev/null 2>&1 &
    srv=$!
    waitport 18615 || true
    # shellcheck disable=SC2086
    timeout 900 "${vg[@]}" "$q" $qargs "$(server_host "$qargs")" -d rxe0 -n "$n" --timeout 600 >/dev/null 2>"$out/err" || rc=$?
  else
    # shellcheck disable=SC2086
    timeout 900 $pargs -d rxe0 -x 1 -n "$n" -p 18515 >/dev/null 2>&1 &
    srv=$!
    waitserver 18515 "$pargs" || true
    # shellcheck disable=SC2086
    timeout 900 "${vg[@]}" $pargs -d rxe0 -x 1 -n "$n" -p 18515 "$(server_host "$pargs")" >"$out/stdout" 2>"$out/err" || rc=$?
  fi
  end_server "$srv"
  # perftest estimates the CPU clock for its report after the loop, and
  # under valgrind that estimate fails ("r^2 < 0.9", exit 1): the loop ran
  # to its end, so the count stands; only perftest's own figures are missing.
  if ((rc == 1)) && [[ $tool == perftest && -s $file ]] && grep -q "Can't produce a report" "$out/err"; then
    echo "noreport $name $tool $rep $n"
    return 0
  fi
  if ((rc != 0)) || [[ ! -s $file ]]; then
    echo "fail $name $tool $rep $n rc=$rc: $(grep -v '^==' "$out/err" | tail -n 2 | tr '\n' ' ')"
    rm -f "$file"
    return 1
  fi
}

# The client's syscalls by name under strace -f -c, at N1 and N2: what the
# hot loop calls per message (the provider's doorbell included).
syscalls() {
  local name=$1 tool=$2 n=$3 qargs=$4 pargs=$5 srv file=$out/$1.$2.$3.strace
  if [[ $tool == qpscope ]]; then
    # shellcheck disable=SC2046,SC2086
    timeout 300 "$q" $(server_args "$qargs") -d rxe0 --timeout 120 >/dev/null 2>&1 &
    srv=$!
    waitport 18615 || true
    # shellcheck disable=SC2086
    timeout 300 strace -f -c -o "$file" "$q" $qargs "$(server_host "$qargs")" -d rxe0 -n "$n" --timeout 120 >/dev/null 2>&1 || true
  else
    # shellcheck disable=SC2086
    timeout 300 $pargs -d rxe0 -x 1 -n "$n" -p 18515 >/dev/null 2>&1 &
    srv=$!
    waitserver 18515 "$pargs" || true
    # shellcheck disable=SC2086
    timeout 300 strace -f -c -o "$file" $pargs -d rxe0 -x 1 -n "$n" -p 18515 "$(server_host "$pargs")" >/dev/null 2>&1 || true
  fi
  end_server "$srv"
}

# The measured loop of each tool and case: one short run collecting
# everything, then the function of the tool's binary that calls the
# provider's post_send (or wr_complete) most (cost_reduce.py loop). The measured runs collect only
# inside it, so set-up and the report after the loop (perftest's bw report
# is O(N^2): 105,000 Ir a message at N = 20,000) stay out of the figure.
declare -A loop=()
discover() {
  local name=$1 tool=$2 qargs=$3 pargs=$4
  measure "$name" "$tool" discover 200 "$qargs" "$pargs"
  local file=$out/$name.$tool.discover.200.cg
  [[ -s $file ]] || return 0
  loop[$name.$tool]=$(python3 "$here/cost_reduce.py" loop "$file" "$tool" "$q")
  mv "$file" "$file.full"
  echo "loop $name $tool ${loop[$name.$tool]}"
}

for c in "${cases[@]}"; do
  IFS='|' read -r name qargs pargs <<<"$c"
  [[ $name =~ $only ]] || continue
  for tool in qpscope perftest; do
    for n in "$n1" "$n2"; do syscalls "$name" "$tool" "$n" "$qargs" "$pargs"; done
    discover "$name" "$tool" "$qargs" "$pargs"
    if [[ $tool == qpscope ]]; then
      cadence "$name" "$tool" "$qargs" ""
    else
      cadence "$name" "$tool" "$pargs" "$out/stdout"
    fi
  done
  for rep in $(seq "$reps"); do
    for n in "$n1" "$n2"; do
      # Alternate which tool goes first.
      if (((rep + n) % 2)); then
        measure "$name" qpscope "$rep" "$n" "$qargs" "$pargs"
        measure "$name" perftest "$rep" "$n" "$qargs" "$pargs"
      else
        measure "$name" perftest "$rep" "$n" "$qargs" "$pargs"
        measure "$name" qpscope "$rep" "$n" "$qargs" "$pargs"
      fi
    done
  done
done

# Reduce the callgrind files (bench/cost_reduce.py): self cost per object
# class, the spin count, and (rep 1) the per-message calls and self cost of
# each function; the syscalls.
python3 "$here/cost_reduce.py" reduce "$out" "$q" "$n1" "$n2"
