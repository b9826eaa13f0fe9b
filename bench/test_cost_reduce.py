#!/usr/bin/env python3
"""Tests of bench/cost_reduce.py's pure logic (ctest label unit): the
callgrind reading, perftest's clock calibration left out, and the refusal
of a counted function that does not both post and poll."""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cost_reduce as cr  # noqa: E402

PERF = "/usr/bin/ib_send_lat"
RXE = "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
LOOP, POST, POLL, CLOCK = "0x0000000000001000", "0x0000000000000500", "0x0000000000000600", "0x0000000000002000"

# A counted loop (perftest, stripped: functions named by address) that
# posts 10 times, polls 20 times and calls the calibration once; the
# calibration calls gettimeofday 30 times. Total 1000 Ir.
CG = f"""# callgrind format
version: 1
creator: test
positions: line
events: Ir
summary: 1000

ob=(1) {PERF}
fl=(1) ???
fn=(1) {LOOP}
0 100
cob=(2) {RXE}
cfn=(2) {POST}
calls=10 0
0 300
cob=(2)
cfn=(3) {POLL}
calls=20 0
0 200
cfn=(4) {CLOCK}
calls=1 0
0 400

fn=(4)
0 50
cob=(3) {LIBC}
cfn=(5) gettimeofday
calls=30 0
0 350

ob=(2)
fn=(2)
0 300
fn=(3)
0 200

ob=(3)
fn=(5)
0 350
"""

failures = 0


def check(what, got, want):
    global failures
    if got != want:
        failures += 1
        print(f"FAIL {what}: got {got!r}, want {want!r}")


with tempfile.NamedTemporaryFile("w", suffix=".cg", delete=False) as f:
    f.write(CG)
try:
    total, selfc, calls, instr, callers, from_fn, incl = cr.parse(f.name)
finally:
    os.unlink(f.name)

check("summary", total, 1000)
check("self cost sums to the summary", sum(selfc.values()), 1000)
check("post calls", calls[(RXE, POST)], 10)
check("inclusive cost of the calibration call", incl[(PERF, LOOP, PERF, CLOCK)], 400)
check("inclusive cost of gettimeofday", incl[(PERF, CLOCK, LIBC, "gettimeofday")], 350)

roots = cr.clock_roots(from_fn, "perftest", {POST, POLL})
check("the calibration is found by what it does", roots, {(PERF, CLOCK)})
check("qpscope's loop without a watchdog call: nothing to leave out", cr.clock_roots(from_fn, "qpscope", {POST, POLL}), set())
check("a loop without the calibration", cr.clock_roots(from_fn, "perftest", {POST, POLL, "gettimeofday"}), set())

n, ir, by, left = cr.clock_cost(selfc, from_fn, incl, roots, "perftest")
check("calibration calls", n, 1)
check("calibration Ir", ir, 400)
check("calibration split", (by["ours"], by["provider"], by["libc"], by["other"]), (50, 0, 350, 0))
check("nothing unplaced", left, 0)
check("no calibration, nothing removed", cr.clock_cost(selfc, from_fn, incl, set(), "perftest")[:2], (0, 0))

# A function the loop calls too is removed only for the calibration's share
# of its calls: gettimeofday called 30 times from the calibration and 10
# from the loop itself.
from_fn[(PERF, LOOP, LIBC, "gettimeofday")] = 10
selfc[(LIBC, "gettimeofday")] = 400
n, ir, by, left = cr.clock_cost(selfc, from_fn, incl, roots, "perftest")
check("shared callee: the calibration's share", by["libc"], 300)

ok = cr.evidence("bw-write-64", "perftest", LOOP, 1000, 1000, 30, 30, False)
check("posts and polls: accepted", ok, None)
no_poll = cr.evidence("bw-write-64", "perftest", LOOP, 1000, 1000, 0, 0, False)
check("no poll: refused, naming tool, case and function",
      bool(no_poll) and all(x in no_poll for x in ("perftest", "bw-write-64", LOOP, "poll_cq")), True)
no_post = cr.evidence("lat-send-2", "qpscope", "run_loop*", 1000, 0, 2000, 2000, False)
check("no post: refused", bool(no_post) and "post_send" in no_post and "qpscope lat-send-2" in no_post, True)
check("write ping-pong: the memory wait is the poll evidence",
      cr.evidence("lat-write-2", "qpscope", "f", 1000, 1000, 0, 5000, True), None)
check("write ping-pong: no wait, no poll: refused",
      cr.evidence("lat-write-2", "qpscope", "f", 1000, 1000, 0, 10, True) is not None, True)
check("no function found: refused", "(none found)" in cr.evidence("lat-read-2", "perftest", "", 1000, 0, 0, 0, False), True)

# qpscope's extended path: its loop posts through the provider's
# wr_complete and polls through start_poll (no post_send, no poll_cq):
# the loop is found by wr_complete, spins are start_poll calls, and the
# evidence line counts both beside the legacy entry points.
QP = "/opt/qpscope"
COMPLETE, START = "0x0000000000000700", "0x0000000000000800"
CGX = f"""# callgrind format
version: 1
creator: test
positions: line
events: Ir
summary: 650

ob=(1) {QP}
fl=(1) ???
fn=(1) qps::perf::hot::client_loop(qps::perf::(anonymous namespace)::Loop&)
0 100
cob=(2) {RXE}
cfn=(2) {COMPLETE}
calls=10 0
0 300
cob=(2)
cfn=(3) {START}
calls=25 0
0 200
cfn=(5) qps::perf::Watchdog::check(unsigned long)
calls=2 0
0 50
fn=(4) setup()
0 0
fn=(5)
0 20
cob=(3) {LIBC}
cfn=(6) poll
calls=2 0
0 30

ob=(2)
fn=(2)
0 300
fn=(3)
0 200

ob=(3)
fn=(6)
0 30
"""
import contextlib, io
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "lat-send-2.qpscope.1.1000.cg")
    with open(path, "w") as f:
        f.write(CGX)
    env = {"COST_POST": f"{RXE} {POST}", "COST_POLL": f"{RXE} {POLL}", "COST_RECV": f"{RXE} 0x0000000000000900",
           "COST_COMPLETE": f"{RXE} {COMPLETE}", "COST_START": f"{RXE} {START}"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        cr.qpscope = QP
        check("the extended loop is found by its wr_complete calls", cr.loop_pattern(path, "qpscope"),
              "qps::perf::hot::client_loop*")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            cr.reduce(d, 1000, 2000)
        lines = {l.split()[0]: l.split() for l in buf.getvalue().splitlines()}
        check("extended: spins are start_poll calls", lines["run"][6], "25")
        # The watchdog's checks come by the clock, not by the message: left
        # out like perftest's calibration (2 calls, 50 Ir: 20 its own, 30 libc).
        check("the watchdog's checks are left out of the total", lines["run"][5], "600")
        check("and of the split: ours, provider, libc, other", lines["run"][7:11], ["100", "500", "0", "0"])
        check("the clock line names them", lines["clock"][5:7] + lines["clock"][12:],
              ["2", "50", "qps::perf::Watchdog::check(unsigned_long)"])
        check("extended: evidence post_send, post_recv, poll_cq, spins, wr_complete, start_poll",
              lines["evidence"][5:], ["0", "0", "0", "25", "10", "25"])
        del os.environ["COST_COMPLETE"], os.environ["COST_START"]
        check("without the extended entry points, no loop is found", cr.loop_pattern(path, "qpscope"), "")
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
check("extended: a wr_complete and start_poll loop is accepted",
      cr.evidence("lat-send-2", "qpscope", "f", 1000, 10, 25, 25, False), None)

print("cost_reduce: " + ("all passed" if not failures else f"{failures} failed"))
sys.exit(1 if failures else 0)
