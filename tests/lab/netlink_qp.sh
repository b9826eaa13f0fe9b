#!/usr/bin/env bash
# Lab test: qps::kernel::list_kernel_qps() (our RDMA netlink dump) against
# `rdma -dd -j resource show qp` (iproute2) in the same boot, field by field:
# ifindex, ifname, port, lqpn, rqpn, type, state, sq/rq PSN, path-mig-state,
# pdn, pid, comm, driver attributes. Runs inside the Soft-RoCE VM:
#
#   lab/qpscope-lab -- tests/lab/netlink_qp.sh build/tests/list_kernel_qps
#
# Prints "N passed, M failed" and exits non-zero when a check fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lister=$1
. "$here/../lib.sh"

pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  pids=()
}
trap 'cleanup; rm -rf "$_scratch"' EXIT

# compare OURS_JSON RDMA_JSON: every QP the same in both, every field equal.
compare() {
  python3 - "$1" "$2" <<'EOF'
import json, sys

ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
types = {"SMI": 0, "GSI": 1, "RC": 2, "UC": 3, "UD": 4, "RAW_IPV6": 5, "RAW_ETHERTYPE": 6,
         "RAW_PACKET": 8, "XRC_INI": 9, "XRC_TGT": 10, "DRIVER": 255}
states = {"RESET": 0, "INIT": 1, "RTR": 2, "RTS": 3, "SQD": 4, "SQE": 5, "ERR": 6}
mig = {"MIGRATED": 0, "REARM": 1, "ARMED": 2}

def from_rdma(q):
    n = {"ifindex": q["ifindex"], "ifname": q["ifname"], "port": q.get("port", 0),
         "lqpn": q["lqpn"], "type": types[q["type"]], "state": states[q["state"]],
         "comm": q.get("comm", "")}
    for theirs_key, key in (("rqpn", "rqpn"), ("sq-psn", "sq_psn"), ("rq-psn", "rq_psn"),
                            ("pdn", "pdn"), ("pid", "pid")):
        if theirs_key in q:
            n[key] = q[theirs_key]
    if "path-mig-state" in q:
        n["path_mig_state"] = mig[q["path-mig-state"]]
    n["driver"] = {k[4:]: v for k, v in q.items() if k.startswith("drv_")}
    return n

def from_ours(q):
    n = dict(q)
    drv = {}
    for k, v in q["driver"]:  # rdma prints numbers (hex ones too) as JSON numbers
        try:
            drv[k] = int(v, 0)
        except ValueError:
            drv[k] = v
    n["driver"] = drv
    return n

a = {(q["ifname"], q["lqpn"]): from_ours(q) for q in ours}
b = {(q["ifname"], q["lqpn"]): from_rdma(q) for q in theirs}
bad = 0
for key in sorted(set(a) | set(b)):
    if key not in a:
        print(f"   only rdma lists {key}: {b[key]}"); bad += 1; continue
    if key not in b:
        print(f"   only we list {key}: {a[key]}"); bad += 1; continue
    for field in sorted(set(a[key]) | set(b[key])):
        x, y = a[key].get(field, "<absent>"), b[key].get(field, "<absent>")
        if x != y:
            print(f"   {key} {field}: ours {x!r}, rdma {y!r}"); bad += 1
print(f"   compared {len(a)} QP(s): {', '.join(f'{k[0]}/{k[1]}' for k in sorted(a))}")
sys.exit(1 if bad else 0)
EOF
}

# snapshot: $ours and $theirs from the same moment (ours before and after
# rdma's listing agree), up to 5 tries.
snapshot() {
  local i before after
  for i in 1 2 3 4 5; do
    before=$("$lister") || { ours=""; return 1; }
    theirs=$(rdma -dd -j resource show qp) || return 1
    after=$("$lister") || return 1
    if [ "$before" = "$after" ]; then ours=$before; return 0; fi
    sleep 0.5
  done
  ours=$after
}

# holds JSON PYTHON-EXPR: the expression over `qs` (a JSON list of QPs) is true.
holds() { python3 -c "import json, sys; qs = json.loads(sys.argv[1]); assert ($2), qs" "$1"; }

# wait_for PYTHON-EXPR: up to 60 s until our listing satisfies it (a loaded
# machine makes the lab slow).
wait_for() {
  local i
  for i in $(seq 300); do
    holds "$("$lister")" "$1" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

case_ "idle rxe0: the kernel's GSI QP only"
run "$lister"
expect_rc 0
expect_true "QP1 of rxe0 is GSI, RTS, port 1, owned by ib_core, no pid/pdn" holds "$out" '
[(q["type"], q["state"], q["port"], q["comm"], "pid" in q, "pdn" in q, "sq_psn" in q)
 for q in qs if q["ifname"] == "rxe0" and q["lqpn"] == 1] == [(1, 3, 1, "ib_core", False, False, True)]'
snapshot
expect_true "agrees with rdma resource show qp" compare "$ours" "$theirs"

case_ "a waiting ibv_rc_pingpong server: RC QP in INIT"
ibv_rc_pingpong -g 1 -d rxe0 -p 18600 >/dev/null 2>&1 &
server=$!; pids+=("$server")
if wait_for "any(q.get('pid') == $server for q in qs)"; then
  ok "the server's QP appears"
  snapshot
  expect_true "pid, comm, type RC, state INIT, port 1, PSNs, rqpn 0, pdn, path-mig" holds "$ours" "
[(q['comm'], q['type'], q['state'], q['port'], 'sq_psn' in q, 'rq_psn' in q, q.get('rqpn'), 'pdn' in q,
  q.get('path_mig_state')) for q in qs if q.get('pid') == $server]
== [('ibv_rc_pingpong', 2, 1, 1, True, True, 0, True, 0)]"
  expect_true "agrees with rdma resource show qp" compare "$ours" "$theirs"
else
  bad "no QP with pid $server after 60 s"
fi
cleanup

case_ "a connected pair, stopped mid-run: two RC QPs in RTS, each the other's peer"
ibv_rc_pingpong -g 1 -d rxe0 -p 18601 -n 100000000 >/dev/null 2>&1 &
server=$!; pids+=("$server")
# The client does not retry: start it once the server listens.
eventually 60 bash -c 'ss -ltn | grep -q ":18601 "'
ibv_rc_pingpong -g 1 -d rxe0 -p 18601 -n 100000000 127.0.0.1 >/dev/null 2>&1 &
client=$!; pids+=("$client")
if wait_for "sorted(q['state'] for q in qs if q.get('pid') in ($server, $client)) == [3, 3]"; then
  ok "both QPs reach RTS"
  kill -STOP "$server" "$client"
  sleep 1  # let rxe finish what is in flight: the PSNs stop moving
  snapshot
  expect_true "server and client QPs name each other as remote QP" holds "$ours" "
(lambda s, c: len(s) == 1 and len(c) == 1 and s[0]['rqpn'] == c[0]['lqpn'] and c[0]['rqpn'] == s[0]['lqpn'])(
  [q for q in qs if q.get('pid') == $server], [q for q in qs if q.get('pid') == $client])"
  expect_true "RTS QPs carry their PSNs (random start, then traffic)" holds "$ours" "
all('sq_psn' in q and 'rq_psn' in q for q in qs if q.get('pid') in ($server, $client))"
  expect_true "agrees with rdma resource show qp" compare "$ours" "$theirs"
else
  bad "the pair did not reach RTS in 60 s"
fi
cleanup

case_ "after the processes exit: their QPs are gone"
run "$lister"
expect_rc 0
expect_true "only kernel QPs are left" holds "$out" 'all("pid" not in q for q in qs)'
snapshot
expect_true "agrees with rdma resource show qp" compare "$ours" "$theirs"

summary
