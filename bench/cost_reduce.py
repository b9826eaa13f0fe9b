#!/usr/bin/env python3
"""bench/cost's reading of callgrind files, in the lab (see bench/cost).

  cost_reduce.py loop FILE TOOL QPSCOPE
      prints the callgrind --toggle-collect pattern of the tool's measured
      loop in FILE (a run without it): the function of the tool's own
      binary that calls the provider's post_send, or its extended post
      (wr_complete), most (their addresses in $COST_POST and
      $COST_COMPLETE, as the guest script found them). Collecting only inside it leaves out set-up and the
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
    incl = collections.Counter()     # the same arcs -> inclusive Ir of those calls
    arc = None
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
                p = line.split()
                ir = int(p[npos]) if len(p) > npos else 0
                if after_call:  # a call's inclusive cost, not self cost
                    after_call = False
                    incl[arc] += ir
                    continue
                selfc[(ob, fn)] += ir
                if by_instr and p[0].startswith("0x"):
                    instr[(ob, fn, p[0])] += ir
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
                arc = (ob, fn, cob or ob, cfn)
                after_call = True
                cob = None
            elif line.startswith("positions:"):
                npos, by_instr = len(line.split()) - 1, line.split()[1] == "instr"
            elif line.startswith("summary:"):
                summary = int(line.split()[1])
    return summary, selfc, calls, instr, callers, from_fn, incl

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



def entry(var):
    """(object's real path, function) of a provider entry point the guest
    script exported in `var` ("OBJECT FUNCTION"), or None."""
    v = os.environ.get(var, "").split()
    return (os.path.realpath(v[0]), v[1]) if len(v) == 2 else None


def loop_pattern(path, tool):
    from_fn = parse(path)[5]
    posts = [e for e in (entry("COST_POST"), entry("COST_COMPLETE")) if e]
    best = collections.Counter()
    for (ob, fn, cob, cfn), n in from_fn.items():
        if klass(ob, tool) == "ours" and any(cfn == pf and os.path.realpath(cob or "") == po for po, pf in posts):
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


CLOCK_MARK = re.compile(r"gettimeofday|fopen|sscanf")
WATCHDOG = "qps::perf::Watchdog::check("


def subtree(from_fn, root, kids=None):
    """Every (object, function) that root calls, directly or not, root included."""
    if kids is None:
        kids = children(from_fn)
    seen, todo = {root}, [root]
    while todo:
        for k in kids.get(todo.pop(), ()):
            if k not in seen:
                seen.add(k)
                todo.append(k)
    return seen


def children(from_fn):
    kids = collections.defaultdict(set)
    for (o, f, co, cf), n in from_fn.items():
        if n:
            kids[(o, f)].add((co, cf))
    return kids


def clock_roots(from_fn, tool, provider_fns):
    """perftest's CPU-clock calibration (get_cpu_mhz) where the counted
    function calls it. The Debian binaries are stripped, so callgrind names
    perftest's own functions by address: get_cpu_mhz is told by what it
    does, not by name. It is the function of perftest's binary that calls
    gettimeofday() (sample_get_cpu_mhz's busy wait) or fopen()/sscanf()
    (proc_get_cpu_mhz reading /proc/cpuinfo), inlined or not, does not post
    or poll (which rules out the loop around it), and is called by no other
    such function. A function named get_cpu_mhz counts too.

    qpscope's are its watchdog's checks (Watchdog::check, out of line for
    this): the loop asks it by the clock (every 10 ms of a run without the
    crew's coordinator, the heartbeats) and every few thousand empty polls,
    never by the message, so how many a message pays depends on how long a
    message takes (callgrind inside the emulated guest makes it many times
    native), as the spins do: left out the same way. The loop's own
    per-message test of whether a look is due stays counted."""
    fns = {(o, f) for (o, f, co, cf) in from_fn} | {(co, cf) for (o, f, co, cf) in from_fn}
    if tool == "qpscope":
        return {(o, f) for o, f in fns if klass(o, tool) == "ours" and (f or "").startswith(WATCHDOG)}
    if tool != "perftest":
        return set()
    clocky, loops, kids = set(), set(), children(from_fn)
    for node in fns:
        if klass(node[0], tool) != "ours":
            continue
        below = subtree(from_fn, node, kids)
        if any(cf in provider_fns for _, cf in below):
            loops.add(node)
        elif node[1] == "get_cpu_mhz" or any(CLOCK_MARK.search(cf or "") for _, cf in below):
            clocky.add(node)
    callers_in = {(co, cf) for (o, f, co, cf), n in from_fn.items() if n and (o, f) in clocky}
    return {node for node in clocky if node not in callers_in}


def clock_cost(selfc, from_fn, incl, roots, tool):
    """What the calibration cost inside the counted function: (calls, the
    inclusive Ir of the calls into the roots, that Ir by object class).
    The class split is every function below a root at its self cost, times
    the share of its calls that came from below a root (1 unless the loop
    calls it too). Returns also the part of the inclusive Ir the split did
    not place (0 when the subtree is the calibration's own)."""
    calls = ir = 0
    for (o, f, co, cf), n in from_fn.items():
        if (co, cf) in roots and (o, f) not in roots:
            calls += n
            ir += incl[(o, f, co, cf)]
    below, kids = set(), children(from_fn)
    for r in roots:
        below |= subtree(from_fn, r, kids)
    by = collections.Counter()
    for node in below:
        into = sum(n for (o, f, co, cf), n in from_fn.items() if (co, cf) == node)
        from_below = sum(n for (o, f, co, cf), n in from_fn.items() if (co, cf) == node and (o, f) in below)
        share = 1.0 if node in roots or not into else from_below / into
        by[klass(node[0], tool)] += selfc.get(node, 0) * share
    return calls, ir, by, ir - sum(by.values())


def evidence(case, tool, fn, n, posts, polls, spins, memory_wait):
    """None when the counted function both posts and polls, else the one
    line that refuses the case. posts: calls into the provider's post_send,
    wr_complete (the extended post) and post_recv; polls: calls into its
    poll_cq or start_poll (the extended poll), all inside the counted
    function (collection is on only there). Write ping-pong waits by
    reading memory: there the poll evidence is poll_cq calls or the spin
    count (the client's hottest instruction, its wait loop) reaching one a
    message."""
    if posts <= 0:
        what = "no call into the provider's post_send, wr_complete or post_recv"
    elif memory_wait and polls <= 0 and spins < n:
        what = f"no poll_cq call and a memory wait of {spins} passes for {n} messages"
    elif not memory_wait and polls <= 0:
        what = "no call into the provider's poll_cq or start_poll"
    else:
        return None
    return f"bench/cost: {tool} {case}: the counted function {fn or '(none found)'} has {what} (N = {n}): not a measured loop, case refused"


def reduce(out, n1, n2):
    post, recv, poll = entry("COST_POST"), entry("COST_RECV"), entry("COST_POLL")
    complete, start = entry("COST_COMPLETE"), entry("COST_START")
    provider_fns = {x[1] for x in (post, recv, poll, complete, start) if x}

    def calls_into(calls, target):
        return sum(v for (obj, fn), v in calls.items()
                   if target and fn == target[1] and os.path.realpath(obj or "") == target[0])

    parsed = {}
    for path in sorted(glob.glob(f"{out}/*.cg")):
        name, tool, rep, n = os.path.basename(path)[:-3].split(".")
        total, selfc, calls, instr, callers, from_fn, incl = parse(path)
        # perftest's clock calibration, where the counted function calls
        # it, is left out: its inclusive cost off the total, its subtree's
        # self cost off each class (the clock line shows both).
        roots = clock_roots(from_fn, tool, provider_fns)
        ccalls, cir, cby, cleft = clock_cost(selfc, from_fn, incl, roots, tool)
        total -= cir
        by = collections.Counter()
        for (obj, fn), ir in selfc.items():
            by[klass(obj, tool)] += ir
        for k, v in cby.items():
            by[k] -= v
        by["ours"] -= cleft
        by = {k: round(v) for k, v in by.items()}
        by["ours"] += total - sum(by.values())  # rounding
        kids = children(from_fn)
        inclock = set()
        for r in roots:
            inclock |= subtree(from_fn, r, kids)
        if instr:
            # The client binary's hottest instruction: its wait loop's
            # (the calibration's own busy wait left out).
            spins = max((ir for (obj, fn, _), ir in instr.items()
                         if klass(obj, tool) == "ours" and (obj, fn) not in inclock), default=0)
        else:
            # A wait's polls: poll_cq, or start_poll (the extended CQ's).
            spins = calls_into(calls, poll) + calls_into(calls, start)
        print("run", name, tool, rep, n, total, spins, by.get("ours", 0), by.get("provider", 0), by.get("libc", 0), by.get("other", 0))
        print("clock", name, tool, rep, n, ccalls, cir, *(round(cby[k]) for k in ("ours", "provider", "libc", "other")),
              round(cleft), ",".join(f.replace(" ", "_") for _, f in sorted(roots)) or "-")
        print("evidence", name, tool, rep, n, calls_into(calls, post), calls_into(calls, recv), calls_into(calls, poll),
              spins, calls_into(calls, complete), calls_into(calls, start))
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
