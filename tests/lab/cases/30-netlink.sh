# Lab case: our RDMA netlink dump (list_kernel_qps) against `rdma -dd -j
# resource show qp`, field by field, for kernel, waiting, connected and
# finished QPs. Its own checks are in tests/lab/netlink_qp.sh.
case_ "kernel QP view agrees with rdma resource show qp"
lister=$(dirname "$q")/tests/list_kernel_qps
run "$here/netlink_qp.sh" "$lister"
echo "$out" | grep -E '^   FAIL' || true
echo "   info netlink_qp.sh: $(tail -n 1 <<<"$out")"
expect_rc 0

# `cm list` against `rdma -j resource show cm_id` while tests/lab/cm_pair
# holds rdma_cm IDs on rxe0 until it is told to go (its stdin's EOF; see
# tests/lab/cm-pair-lib.sh): first its listener alone on 192.0.2.1:18640,
# then two connections to it held open, both ends of each, then nothing
# once both have left. (perftest's rdma_cm pair did this before; its
# client's crashes and its 25 s running out on a loaded host decided the
# outcome.) No read waits for a time: each follows the lines in which
# cm_pair says the IDs are there.
case_ "cm list: cm_pair's listener, then two connections held open, then none, as rdma resource show cm_id has them"
cml_schema=$(cd "$here/../../docs/schema" && pwd)/cm-list.schema.json
cml_port=18640
# cml_check OURS RDMA [SERVER CLIENT listening|connected [RDMA_QPS]]: ours
# validates against the schema and lists what rdma lists (device, port,
# cm-idn, state, port space, addresses, QPN, pid, command); with the pids,
# it holds the server's listener only, or that listener and the two
# connections, both ends of each, whose QPs (RDMA_QPS: `rdma -j resource
# show qp`) are each other's destination.
cml_check() {
  python3 - "$cml_schema" "$cml_port" "$@" <<'PY'
import json, sys
schema, port = json.load(open(sys.argv[1])), sys.argv[2]
ours, theirs = json.loads(sys.argv[3]), json.loads(sys.argv[4] or "[]")
try:
    import jsonschema
    jsonschema.validate(ours, schema)
except ImportError:
    pass
def from_rdma(c):
    return (c["ifname"], c.get("port", 0), c.get("cm-idn"), c["state"], c["ps"], c.get("src-addr"),
            c.get("dst-addr"), c.get("lqpn"), c.get("pid"), c.get("comm", ""))
def from_ours(c):
    strip = lambda a: a if a is None else a.replace("[", "").replace("]", "")
    return (c["device"], c["port"] or 0, c["id"], c["state"]["name"], c["port_space"]["name"], strip(c["local"]),
            strip(c["remote"]), c["qpn"] and c["qpn"]["raw"], c["pid"], c["comm"])
a, b = sorted(map(from_ours, ours["cm_ids"]), key=str), sorted(map(from_rdma, theirs), key=str)
assert a == b, f"ours {a} != rdma {b}"
if len(sys.argv) > 5:
    server, client, stage = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
    ids = ours["cm_ids"]
    here = "192.0.2.1:" + port
    # Bound to rxe0's address, the listener has rxe0's port 1 and an
    # all-zero destination of its family (perftest's, on 0.0.0.0, had
    # neither).
    listener = ("rxe0", 1, "LISTEN", "listening", "TCP", here, "0.0.0.0:0", None, server, "cm_pair")
    row = lambda c: (c["device"], c["port"], c["state"]["name"], c["phase"], c["port_space"]["name"], c["local"],
                     c["remote"], c["qpn"], c["pid"], c["comm"])
    listening = [c for c in ids if c["phase"] == "listening"]
    assert [row(c) for c in listening] == [listener], ids
    if stage == "listening":
        assert len(ids) == 1, ids
    else:
        conns = [c for c in ids if c["phase"] != "listening"]
        assert len(conns) == 4, ids
        assert all((c["device"], c["port"], c["state"]["name"], c["phase"], c["port_space"]["name"], c["comm"])
                   == ("rxe0", 1, "CONNECT", "connected", "TCP", "cm_pair") for c in conns), conns
        srv = [c for c in conns if c["pid"] == server]
        cli = [c for c in conns if c["pid"] == client]
        assert len(srv) == 2 and len(cli) == 2, conns
        assert all(c["local"] == here for c in srv), srv
        qpns = [c["qpn"]["raw"] for c in conns]
        assert len(set(qpns)) == 4, conns
        qps = {q["lqpn"]: q for q in json.loads(sys.argv[8])}
        for c in cli:  # each client end has its server end: the addresses swapped, the QPs each other's peer
            assert c["remote"] == here and c["local"].startswith("192.0.2.1:") and c["local"] != here, c
            s = [x for x in srv if x["local"] == c["remote"] and x["remote"] == c["local"]]
            assert len(s) == 1, (c, srv)
            mine, theirs = qps[c["qpn"]["raw"]], qps[s[0]["qpn"]["raw"]]
            assert (mine["pid"], mine["state"], mine.get("rqpn")) == (client, "RTS", theirs["lqpn"]), (mine, theirs)
            assert (theirs["pid"], theirs["state"], theirs.get("rqpn")) == (server, "RTS", mine["lqpn"]), (mine, theirs)
PY
}
# cml_snapshot [ARGS]: $cml_ours (`cm list --json ARGS`) and $cml_theirs
# (rdma's) from one moment: rdma's before and after ours agree, up to 5 tries.
cml_snapshot() {
  local i before after
  for i in 1 2 3 4 5; do
    before=$(rdma -j resource show cm_id) || return 1
    cml_ours=$("$q" --json cm list "$@") || return 1
    after=$(rdma -j resource show cm_id) || return 1
    cml_theirs=$after
    [ "$before" = "$after" ] && return 0
    sleep 0.5
  done
}
. "$here/cm-pair-lib.sh"

cmp_start cml_srv listen 192.0.2.1 "$cml_port"
if cmp_expect cml_srv listening; then
  ok "cm_pair listens on 192.0.2.1:$cml_port (pid $cml_srv_pid)"
  run "$q" cm list
  echo "$out" | sed 's/^/   | /'
  expect_rc 0
  expect_out_has "1 rdma_cm ID(s)"
  expect_out_has "LISTEN (8)"
  cml_snapshot
  expect_true "cm list --json, the listener alone (pid $cml_srv_pid) on 192.0.2.1:$cml_port, as rdma lists it" \
    cml_check "$cml_ours" "$cml_theirs" "$cml_srv_pid" 0 listening

  cmp_start cml_cli connect 192.0.2.1 "$cml_port" 2
  # Both ends ESTABLISHED: the client's line, and the server's for each.
  if cmp_expect cml_cli "connected 2" && cmp_expect cml_srv "accepted 1" && cmp_expect cml_srv "accepted 2"; then
    ok "two connections held open (client pid $cml_cli_pid)"
    run "$q" cm list
    echo "$out" | sed 's/^/   | /'
    expect_rc 0
    expect_out_has "5 rdma_cm ID(s)"
    expect_out_has "CONNECT (5)"
    expect_out_has "LISTEN (8)"
    cml_snapshot
    cml_qps=$(rdma -j resource show qp)
    expect_true "cm list --json: the listener and the two connections, both ends of each (pids $cml_srv_pid, $cml_cli_pid), as rdma lists them" \
      cml_check "$cml_ours" "$cml_theirs" "$cml_srv_pid" "$cml_cli_pid" connected "$cml_qps"
    cml_snapshot -d rxe0
    expect_true "cm list -d rxe0: the same, as rdma lists them" \
      cml_check "$cml_ours" "$cml_theirs" "$cml_srv_pid" "$cml_cli_pid" connected "$cml_qps"
    run "$q" --json cm list --pid "$cml_cli_pid"
    expect_true "--pid (the client): its two ends only (got $(jq -c '[.cm_ids[] | [.phase, .pid]]' <<<"$out"))" \
      test "$(jq -c '[.cm_ids[] | [.phase, .pid]]' <<<"$out")" = "[[\"connected\",$cml_cli_pid],[\"connected\",$cml_cli_pid]]"
    run "$q" --json cm list --state connected
    expect_true "--state connected: the four ends, not the listener (got $(jq -c '[.cm_ids[] | .phase]' <<<"$out"))" \
      test "$(jq -c '[.cm_ids[] | .phase] | [length, unique]' <<<"$out")" = '[4,["connected"]]'
    # cm_pair's listener stays while its connections are held (perftest's
    # destroyed its listener once it had accepted, so this matched none):
    # --state listening finds it alone among the five.
    run "$q" cm list --state listening
    expect_out_has "1 of 5 rdma_cm ID(s) on this host"
    run "$q" --json cm list --state listening
    expect_true "--state listening: the listener only (got $(jq -c '[.cm_ids[] | [.phase, .pid, .local]]' <<<"$out"))" \
      test "$(jq -c '[.cm_ids[] | [.phase, .pid, .local]]' <<<"$out")" = "[[\"listening\",$cml_srv_pid,\"192.0.2.1:$cml_port\"]]"
  else
    bad "the connections did not come up: $cmp_why"
  fi
else
  bad "cm_pair did not listen: $cmp_why"
fi
# Told to go: both disconnect, destroy their IDs and QPs and exit 0.
cmp_go cml_cli cml_srv
if [ -n "${cml_cli_rc:-}" ]; then
  expect_true "the client left cleanly (exit $cml_cli_rc, stderr '$(cat "$cml_cli_err")')" \
    test "$cml_cli_rc/$(cat "$cml_cli_err")" = 0/
fi
expect_true "the server left cleanly (exit $cml_srv_rc, stderr '$(cat "$cml_srv_err")')" \
  test "$cml_srv_rc/$(cat "$cml_srv_err")" = 0/
expect_true "no cm_pair process left" bash -c '! pgrep -x cm_pair'
run "$q" cm list
expect_rc 0; expect_out_has "no rdma_cm IDs on this host"
run "$q" --json cm list
expect_true "JSON: an empty cm_ids" test "$(jq -c .cm_ids <<<"$out")" = "[]"
cml_snapshot
expect_true "rdma resource show cm_id agrees: none" cml_check "$cml_ours" "$cml_theirs"
expect_true "rdma resource show qp: no QP of cm_pair left" bash -c '! rdma resource show qp | grep -q cm_pair'
run "$q" cm list -d rxe9
expect_rc 2; expect_err_lines 1; expect_err_has "unknown device 'rxe9': did you mean 'rxe0'?"
