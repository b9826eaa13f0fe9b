# Lab case: our RDMA netlink dump (list_kernel_qps) against `rdma -dd -j
# resource show qp`, field by field, for kernel, waiting, connected and
# finished QPs. Its own checks are in tests/lab/netlink_qp.sh.
case_ "kernel QP view agrees with rdma resource show qp"
lister=$(dirname "$q")/tests/list_kernel_qps
run "$here/netlink_qp.sh" "$lister"
echo "$out" | grep -E '^   FAIL' || true
echo "   info netlink_qp.sh: $(tail -n 1 <<<"$out")"
expect_rc 0

# `cm list` against `rdma -j resource show cm_id` while perftest's rdma_cm
# pair (ib_send_lat -R) runs on rxe0. perftest 6.x with -R connects twice
# through rdma_cm (its own exchange, then the test's QP), each time from a
# listener on 0.0.0.0:18515 it destroys once the connection is accepted: so
# first one listener (before the client starts), then four IDs in CONNECT,
# the two ends of each connection. Both stopped and waited for at the end.
case_ "cm list: perftest's rdma_cm listener, then its connections, as rdma resource show cm_id has them"
cml_schema=$(cd "$here/../../docs/schema" && pwd)/cm-list.schema.json
# cml_check OURS RDMA [SERVER CLIENT [listening|connected]]: ours validates
# against the schema and lists what rdma lists (device, port, cm-idn, state,
# port space, addresses, QPN, pid, command); with the pids, it holds the
# server's listener only, or the pair's connections, both ends of each.
cml_check() {
  python3 - "$cml_schema" "$@" <<'PY'
import json, sys
schema, ours, theirs = json.load(open(sys.argv[1])), json.loads(sys.argv[2]), json.loads(sys.argv[3] or "[]")
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
if len(sys.argv) > 4:
    server, client, stage = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    ids = ours["cm_ids"]
    if stage == "listening":
        assert [(c["device"], c["port"], c["state"]["name"], c["phase"], c["local"], c["remote"], c["qpn"], c["pid"],
                 c["comm"]) for c in ids] == [("rxe0", None, "LISTEN", "listening", "0.0.0.0:18515", None, None,
                                               server, "ib_send_lat")], ids
    else:
        assert len(ids) == 4, ids
        assert all((c["device"], c["port"], c["state"]["name"], c["phase"], c["port_space"]["name"], c["comm"])
                   == ("rxe0", 1, "CONNECT", "connected", "TCP", "ib_send_lat") for c in ids), ids
        srv = [c for c in ids if c["pid"] == server]
        cli = [c for c in ids if c["pid"] == client]
        assert len(srv) == 2 and len(cli) == 2, ids
        for c in cli:  # each client end has its server end: the addresses swapped
            s = [x for x in srv if x["local"] == c["remote"] and x["remote"] == c["local"]]
            assert len(s) == 1 and c["remote"] == "192.0.2.1:18515" and c["local"].startswith("192.0.2.1:"), (c, srv)
        qpns = [c["qpn"]["raw"] for c in ids]
        assert len(set(qpns)) == 4, ids
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
. "$here/perftest-lib.sh"
# Read while perftest's server listens alone (before its client starts).
pt_on_listen() {
  cml_server=$pt_listener
  run "$q" cm list; cml_listen_text=$out
  cml_snapshot; cml_listen=$cml_ours; cml_listen_rdma=$cml_theirs
}

# While the pair runs (its 30 s include the emulator's slow starts), only
# read; the checks come after.
if pt_pair_up 4 30 ib_send_lat -R -D 25; then
  cml_pids=("${pt_pids[@]}")
  ok "the pair is connected (four IDs in CONNECT: two connections)"
  cml_client=$(pgrep -P "${cml_pids[1]}" -x ib_send_lat)
  run "$q" cm list; cml_text=$out; cml_text_rc=$rc
  cml_snapshot; cml_all=$cml_ours; cml_all_rdma=$cml_theirs
  cml_snapshot -d rxe0; cml_dev=$cml_ours; cml_dev_rdma=$cml_theirs
  cml_of_client=$("$q" --json cm list --pid "$cml_client")
  cml_connected_only=$("$q" --json cm list --state connected)
  run "$q" cm list --state listening; cml_none=$out
  cml_alive=$(pgrep -x ib_send_lat | wc -l)

  echo "$cml_listen_text" | sed 's/^/   | /'
  echo "$cml_text" | sed 's/^/   | /'
  out=$cml_listen_text
  expect_out_has "1 rdma_cm ID(s)"
  expect_out_has "LISTEN (8)"
  expect_true "cm list --json, the server alone: its listener (pid $cml_server) on 0.0.0.0:18515, no port, as rdma lists it" \
    cml_check "$cml_listen" "$cml_listen_rdma" "$cml_server" 0 listening
  out=$cml_text; rc=$cml_text_rc
  expect_rc 0
  expect_out_has "4 rdma_cm ID(s)"
  expect_out_has "CONNECT (5)"
  expect_true "both perftest processes still ran while we read (got $cml_alive)" test "$cml_alive" = 2
  expect_true "cm list --json: the pair's two connections, both ends of each (pids $cml_server, $cml_client), as rdma lists them" \
    cml_check "$cml_all" "$cml_all_rdma" "$cml_server" "$cml_client" connected
  expect_true "cm list -d rxe0: the same, as rdma lists them" \
    cml_check "$cml_dev" "$cml_dev_rdma" "$cml_server" "$cml_client" connected
  expect_true "--pid (the client): its two ends only" \
    test "$(jq -c '[.cm_ids[] | [.phase, .pid]]' <<<"$cml_of_client")" = "[[\"connected\",$cml_client],[\"connected\",$cml_client]]"
  expect_true "--state connected: all four" test "$(jq '.cm_ids | length' <<<"$cml_connected_only")" = 4
  out=$cml_none
  expect_out_has "no rdma_cm ID matches (4 on this host)"
else
  cml_pids=("${pt_pids[@]}")
  bad "perftest's pair did not come up in 3 tries (the last: $pt_why)"
fi
kill "${cml_pids[@]}" 2>/dev/null
wait "${cml_pids[@]}" 2>/dev/null
expect_true "perftest's processes are gone" eventually 10 bash -c '! pgrep -x ib_send_lat'
eventually 10 bash -c '"$1" cm list | grep -q "no rdma_cm IDs"' _ "$q"
run "$q" cm list
expect_rc 0; expect_out_has "no rdma_cm IDs on this host"
run "$q" --json cm list
expect_true "JSON: an empty cm_ids" test "$(jq -c .cm_ids <<<"$out")" = "[]"
cml_snapshot
expect_true "rdma resource show cm_id agrees: none" cml_check "$cml_ours" "$cml_theirs"
run "$q" cm list -d rxe9
expect_rc 2; expect_err_lines 1; expect_err_has "unknown device 'rxe9': did you mean 'rxe0'?"
