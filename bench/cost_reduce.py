#!/usr/bin/env python3
"""bench/cost's reading of callgrind files, in the lab (see bench/cost).

  cost_reduce.py loop FILE TOOL QPSCOPE
      prints the callgrind --toggle-collect pattern of the tool's measured
      loop in FILE (a run without it): the function of the tool's own
      binary that calls the provider's post_send most (its address in
      $COST_POST, as the guest script found it). Collecting only inside it leaves out set-up and the
      report after the loop (perftest's bw report alone is O(N^2)).
  cost_reduce.py reduce OUT QPSCOPE N1 N2
      reads OUT/*.cg and OUT/*.strace and prints bench/cost-guest.sh's
      run, fn, call and sys lines.
"""
import collections, glob, os, re, sys

qpscope = ""

def parse(path):
    """Total, self Ir per (object, function), calls per callee, Ir per
    instruction, calls by caller object, and calls by caller function."""
    names = {"ob": {}, "fn": {}}
    selfc, calls, instr = collections.Counter(), collections.Counter(), collections.Counter()
    callers = collections.Counter()  # (caller object, callee object, callee) -> calls
    from_fn = collections.Counter()  # (caller object, caller, callee object, callee) -> calls
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
                from_fn[(ob, fn, cob or ob, cfn)] += int(val.split()[0])
                after_call = True
                cob = None
            elif line.startswith("positions:"):
                npos, by_instr = len(line.split()) - 1, line.split()[1] == "instr"
            elif line.startswith("summary:"):
                summary = int(line.split()[1])
    return summary, selfc, calls, instr, callers, from_fn

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



def loop_pattern(path, tool):
    from_fn = parse(path)[5]
    post_obj, post_fn = os.environ["COST_POST"].split()
    best = collections.Counter()
    for (ob, fn, cob, cfn), n in from_fn.items():
        if klass(ob, tool) == "ours" and cfn == post_fn and os.path.realpath(cob or "") == os.path.realpath(post_obj):
            best[fn] += n
    if not best:
        return ""
    fn = best.most_common(1)[0][0]
    # C++ names carry their parameters: match the name up to them. A "("
    # before the parameters (an anonymous namespace) becomes "?", so the
    # pattern names the function, not every function of its namespace
    # (nested matches would toggle collection off again).
    name = fn.replace("(anonymous namespace)", "?anonymous namespace?")
    pattern = name.split("(")[0] + "*" if "(" in name else name
    if pattern.endswith("::*"):
        raise SystemExit(f"cost_reduce: no callgrind pattern for the loop function {fn!r}")
    return pattern


def reduce(out, n1, n2):
    poll_obj = poll_fn = None
    maps = os.environ.get("COST_POLL", "")
    if maps:
        poll_obj, poll_fn = maps.split()

    parsed = {}
    for path in sorted(glob.glob(f"{out}/*.cg")):
        name, tool, rep, n = os.path.basename(path)[:-3].split(".")
        total, selfc, calls, instr, callers, _ = parse(path)
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

    for (name, tool, n), (selfc, calls, callers) in sorted(parsed.items()):
        if n != n2 or (name, tool, n1) not in parsed:
            continue
        s1, c1, k1 = parsed[(name, tool, n1)]
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

if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "loop":
        qpscope = sys.argv[4]
        print(loop_pattern(sys.argv[2], sys.argv[3]))
    elif len(sys.argv) == 6 and sys.argv[1] == "reduce":
        qpscope = sys.argv[3]
        reduce(sys.argv[2], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit("usage: cost_reduce.py loop FILE TOOL QPSCOPE | reduce OUT QPSCOPE N1 N2")
