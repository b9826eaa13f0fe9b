#!/usr/bin/env bash
# Runs inside the lab (see bench/cost): the client of each case under
# valgrind --tool=callgrind (the server natively), qpscope and perftest, at
# two message counts, REPS times each; then reduces every callgrind file.
# Prints one machine-readable line per measurement:
#   poll <object> <function>          the provider's poll_cq, as callgrind names it
#   run <case> <tool> <rep> <messages> <total_ir> <spins> <ours> <provider> <libc> <other>
#   fn <case> <tool> <class> <calls_per_msg> <self_ir_per_msg> <function>   (rep 1, N2 - N1)
#   call <case> <tool> <caller_class> <calls_per_msg> <callee>   (rep 1, N2 - N1; allocation, locks)
#   sys <case> <tool> <calls_per_msg> <syscall>   (strace -f -c, N2 - N1)
#   noreport <case> <tool> <rep> <messages>   (perftest could not print its report; the count stands)
#   fail <case> <tool> <rep> <messages> <what>
# <spins> is the busy-wait count: calls into the provider's poll_cq (CQ
# waits), or, for write ping-pong (which polls memory), the executions of
# the client binary's hottest instruction (its wait loop).
# Usage: cost-guest.sh QPSCOPE N1 N2 REPS [CASE_REGEX]
set -euo pipefail
q=$(realpath "$1") n1=$2 n2=$3 reps=$4 only=${5:-.}
out=/tmp/cost
mkdir -p "$out"

# case | qpscope client arguments | perftest tool and arguments
cases=(
  "lat-send-2|ping-pong --op send -s 2|ib_send_lat -s 2"
  "lat-write-2|ping-pong --op write -s 2|ib_write_lat -s 2"
  "lat-read-2|ping-pong --op read -s 2|ib_read_lat -s 2"
  "bw-write-64|bw --op write -s 64|ib_write_bw -s 64"
  "bw-write-64K|bw --op write -s 64K|ib_write_bw -s 65536"
)

# The provider's poll_cq: ibv_poll_cq() is an inline call through
# context->ops.poll_cq, which is static in librxe (stripped), so callgrind
# names it by its address: find that address from a live context.
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
# struct ibv_context { device; struct ibv_context_ops ops; }: poll_cq is ops' 12th pointer.
fp = ctypes.c_void_p.from_address(ctx + 8 + 11 * 8).value
for line in open("/proc/self/maps"):
    f = line.split()
    lo, hi = (int(x, 16) for x in f[0].split("-"))
    if lo <= fp < hi and len(f) >= 6:
        # Lowest mapping of that file = its load base (ELF vaddr 0).
        base = min(int(l.split()[0].split("-")[0], 16) for l in open("/proc/self/maps") if l.split()[-1] == f[-1])
        print(f"poll {f[-1]} 0x{fp - base:016x}")
        break
PY
)
echo "$poll"
export COST_POLL=${poll#poll }

waitport() {
  for _ in $(seq 300); do ss -ltn | grep -q ":$1 " && return 0; sleep 0.1; done
  return 1
}

# A server whose client is gone has up to 10 s to finish its report; then
# it is killed (a perftest server waits for ever for a client that failed).
end_server() {
  local _
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# One client run under callgrind, up to 3 tries (perftest's CPU clock
# estimate sometimes fails under valgrind: "r^2 < 0.9").
measure() {
  local try
  for try in 1 2 3; do
    measure_once "$@" && return 0
  done
  return 0
}

measure_once() {
  local name=$1 tool=$2 rep=$3 n=$4 qargs=$5 pargs=$6 srv rc=0
  local file=$out/$name.$tool.$rep.$n.cg
  local vg=(valgrind --tool=callgrind --dump-line=no --compress-pos=no --callgrind-out-file="$file")
  # Write ping-pong waits by reading memory, no call: count instructions.
  [[ $name == lat-write* ]] && vg+=(--dump-instr=yes)
  if [[ $tool == qpscope ]]; then
    # shellcheck disable=SC2086 # word-split the argument lists
    timeout 900 "$q" ${qargs%% *} -d rxe0 --timeout 600 >/dev/null 2>&1 &
    srv=$!
    waitport 18615 || true
    # shellcheck disable=SC2086
    timeout 900 "${vg[@]}" "$q" $qargs 127.0.0.1 -d rxe0 -n "$n" --timeout 600 >/dev/null 2>"$out/err" || rc=$?
  else
    # shellcheck disable=SC2086
    timeout 900 $pargs -d rxe0 -x 1 -n "$n" -p 18515 >/dev/null 2>&1 &
    srv=$!
    waitport 18515 || true
    # shellcheck disable=SC2086
    timeout 900 "${vg[@]}" $pargs -d rxe0 -x 1 -n "$n" -p 18515 127.0.0.1 >/dev/null 2>"$out/err" || rc=$?
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
    # shellcheck disable=SC2086
    timeout 300 "$q" ${qargs%% *} -d rxe0 --timeout 120 >/dev/null 2>&1 &
    srv=$!
    waitport 18615 || true
    # shellcheck disable=SC2086
    timeout 300 strace -f -c -o "$file" "$q" $qargs 127.0.0.1 -d rxe0 -n "$n" --timeout 120 >/dev/null 2>&1 || true
  else
    # shellcheck disable=SC2086
    timeout 300 $pargs -d rxe0 -x 1 -n "$n" -p 18515 >/dev/null 2>&1 &
    srv=$!
    waitport 18515 || true
    # shellcheck disable=SC2086
    timeout 300 strace -f -c -o "$file" $pargs -d rxe0 -x 1 -n "$n" -p 18515 127.0.0.1 >/dev/null 2>&1 || true
  fi
  end_server "$srv"
}

for c in "${cases[@]}"; do
  IFS='|' read -r name qargs pargs <<<"$c"
  [[ $name =~ $only ]] || continue
  for tool in qpscope perftest; do
    for n in "$n1" "$n2"; do syscalls "$name" "$tool" "$n" "$qargs" "$pargs"; done
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

# Reduce the callgrind files: self cost per object class, the spin count,
# and (rep 1) the per-message calls and self cost of each function.
python3 - "$out" "$q" "$n1" "$n2" <<'PY'
import collections, glob, os, re, sys
out, qpscope, n1, n2 = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def parse(path):
    """Self Ir per (object, function), calls per callee, Ir per instruction."""
    names = {"ob": {}, "fn": {}}
    selfc, calls, instr = collections.Counter(), collections.Counter(), collections.Counter()
    callers = collections.Counter()  # (caller object, callee object, callee) -> calls
    ob = fn = cob = cfn = None
    after_call = False
    npos, by_instr = 1, False
    summary = None
    def name(kind, val):
        m = re.match(r"\((\d+)\)(?: (.*))?$", val)
        if not m:
            return val
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind][m.group(1)]
    with open(path) as f:
        for line in f:
            c = line[:1]
            if c.isdigit() or c in "+-*":
                if after_call:  # a call's inclusive cost, not self cost
                    after_call = False
                    continue
                p = line.split()
                ir = int(p[npos]) if len(p) > npos else 0
                selfc[(ob, fn)] += ir
                if by_instr and p[0].startswith("0x"):
                    instr[(ob, p[0])] += ir
                continue
            key, _, val = line.rstrip("\n").partition("=")
            if key == "ob":
                ob = name("ob", val)
            elif key == "fn":
                fn = name("fn", val)
                cob = None
            elif key == "cob":
                cob = name("ob", val)
            elif key == "cfn":
                cfn = name("fn", val)
            elif key == "calls":
                calls[(cob or ob, cfn)] += int(val.split()[0])
                callers[(ob, cob or ob, cfn)] += int(val.split()[0])
                after_call = True
                cob = None
            elif line.startswith("positions:"):
                npos, by_instr = len(line.split()) - 1, line.split()[1] == "instr"
            elif line.startswith("summary:"):
                summary = int(line.split()[1])
    return summary, selfc, calls, instr, callers

FORBIDDEN = re.compile(r"^(malloc|calloc|realloc|free|cfree|aligned_alloc|posix_memalign|operator new|operator delete"
                       r"|pthread_mutex_(lock|unlock|trylock)|pthread_rwlock_\w+|pthread_cond_\w+|pthread_spin_(lock|unlock)"
                       r"|sem_\w+|__lll_lock_\w+|syscall)\b")

def klass(obj, tool):
    b = os.path.basename(obj or "")
    if (tool == "qpscope" and os.path.realpath(obj or "") == qpscope) or (tool == "perftest" and obj.startswith("/usr/bin/ib_")):
        return "ours"
    if re.match(r"lib.*-rdmav\d+\.so|libibverbs\.so", b):
        return "provider"
    if re.match(r"libc\.so", b):
        return "libc"
    return "other"

poll_obj = poll_fn = None
maps = os.environ.get("COST_POLL", "")
if maps:
    poll_obj, poll_fn = maps.split()

parsed = {}
for path in sorted(glob.glob(f"{out}/*.cg")):
    name, tool, rep, n = os.path.basename(path)[:-3].split(".")
    total, selfc, calls, instr, callers = parse(path)
    by = collections.Counter()
    for (obj, fn), ir in selfc.items():
        by[klass(obj, tool)] += ir
    if instr:
        # The client binary's hottest instruction: its wait loop's.
        spins = max((ir for (obj, _), ir in instr.items() if klass(obj, tool) == "ours"), default=0)
    else:
        spins = sum(v for (obj, fn), v in calls.items() if fn == poll_fn and os.path.realpath(obj or "") == os.path.realpath(poll_obj))
    print("run", name, tool, rep, n, total, spins, by["ours"], by["provider"], by["libc"], by["other"])
    if rep == "1":
        parsed[(name, tool, int(n))] = (selfc, calls, callers)

for (name, tool, n), (selfc, calls, _) in sorted(parsed.items()):
    if n != n2 or (name, tool, n1) not in parsed:
        continue
    s1, c1, k1 = parsed[(name, tool, n1)]
    selfc, calls, callers = selfc, calls, parsed[(name, tool, n)][2]
    dn = n2 - n1
    keys = set(selfc) | set(s1) | set(calls) | set(c1)
    for obj, fn in keys:
        ds = selfc.get((obj, fn), 0) - s1.get((obj, fn), 0)
        dc = calls.get((obj, fn), 0) - c1.get((obj, fn), 0)
        if abs(dc) * 200 >= dn or abs(ds) * 20 >= dn:
            print("fn", name, tool, klass(obj, tool), f"{dc / dn:.3f}", f"{ds / dn:.1f}", f"{os.path.basename(obj or '?')}:{fn}")
    # What the hot loop must not call: allocation and locks (by the class of
    # the calling object, so the provider's own spinlock is told apart).
    by = collections.Counter()
    for (cob, obj, fn) in set(callers) | set(k1):
        if fn and FORBIDDEN.search(fn):
            by[(klass(cob, tool), fn)] += callers.get((cob, obj, fn), 0) - k1.get((cob, obj, fn), 0)
    for (cls, fn), dc in sorted(by.items()):
        if dc * 1000 >= dn:
            print("call", name, tool, cls, f"{dc / dn:.3f}", fn.replace(" ", "_"))

def strace_counts(path):
    counts = {}
    try:
        for line in open(path):
            f = line.split()
            if len(f) >= 5 and f[0][0].isdigit() and f[-1] != "total":
                counts[f[-1]] = int(f[3])
    except OSError:
        pass
    return counts

for path in sorted(glob.glob(f"{out}/*.{n2}.strace")):
    name, tool = os.path.basename(path).split(".")[:2]
    a, b = strace_counts(f"{out}/{name}.{tool}.{n1}.strace"), strace_counts(path)
    if not b:
        print("fail", name, tool, "-", n2, "strace: no summary")
        continue
    for sc in sorted(set(a) | set(b)):
        d = b.get(sc, 0) - a.get(sc, 0)
        if d * 100 >= n2 - n1:
            print("sys", name, tool, f"{d / (n2 - n1):.3f}", sc)
PY
