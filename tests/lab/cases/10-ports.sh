# Lab cases: `qpscope ports` against the lab's rxe0 and the reference tools.
# Sourced by tests/lab/run-all with $q (the binary) and $here set.

case_ "ports shows the lab's rxe0 as the lab sets it up"
run "$q" ports
expect_rc 0
expect_out_has "rxe0 (uverbs"
expect_out_has "port 1"
expect_out_has "state                   : ACTIVE (4)"
expect_out_has "link layer              : Ethernet (2)"
expect_out_has "active MTU              : 1024 bytes (3)"
expect_true "GID 1 is RoCE v2, veth0, 192.0.2.1" \
  grep -qE '^ +1 +0000:0000:0000:0000:0000:ffff:c000:0201 +RoCE v2 \(2\) +veth0 +192\.0\.2\.1$' <<<"$out"

case_ "ports --json agrees with ibv_devinfo -v, rdma link show and sysfs"
run python3 "$here/compare_ports.py" "$q"
echo "$out" | grep -E '^   (ok|FAIL)' | grep FAIL || true
echo "$out" | tail -1
expect_rc 0
run "$q" ports --json
expect_true "rxe0 port 1: ACTIVE, Ethernet, MTU 1024, RoCE v2 GID 192.0.2.1 on veth0" python3 -c '
import json, sys
d = json.loads(sys.argv[1])["devices"]
p = [x for x in d if x["name"] == "rxe0"][0]["ports"][0]
assert p["state"] == {"raw": 4, "name": "ACTIVE"}, p["state"]
assert p["link_layer"]["name"] == "Ethernet"
assert p["active_mtu"] == {"raw": 3, "bytes": 1024}, p["active_mtu"]
assert all(isinstance(p[k]["bytes"], int) for k in ("active_mtu", "max_mtu")), "MTU bytes must be JSON integers"
assert isinstance(p["active_width"]["lanes"], int) and isinstance(p["max_vl_num"]["vls"], int)
assert all(isinstance(c["value"], int) and set(c) == {"value"} for c in p["hw_counters"].values()), p["hw_counters"]
assert p["hw_counters"]["sent_pkts"]["value"] >= 0
g = [g for g in p["gids"] if g.get("ipv4") == "192.0.2.1"]
assert g and g[0]["type"]["name"] == "RoCE v2" and g[0]["netdev"] == "veth0" and g[0]["index"] == 1, g
' "$out"
expect_true "max inline was probed (rxe grants some)" python3 -c '
import json, sys
d = [x for x in json.loads(sys.argv[1])["devices"] if x["name"] == "rxe0"][0]
assert 64 <= d["limits"]["max_inline_data_rc"] <= 65536, d["limits"]
' "$out"
expect_true "the probe left no QP behind (only the kernel GSI QP)" bash -c "! rdma resource show qp | grep -v \"type GSI\" | grep -q ."

case_ "filters and bad input"
run "$q" ports -d nosuch0
expect_rc 2; expect_err_lines 1; expect_err_has "unknown device 'nosuch0'"; expect_err_has "rxe0"
run "$q" ports -d rxe0 -i 2
expect_rc 2; expect_err_lines 1; expect_err_has "device rxe0 has no port 2"; expect_err_has "1..1"
# The old spelling of -i: the same filter (port 2 reaches the same check), one note.
run "$q" ports -d rxe0 -p 2
expect_rc 2; expect_err_lines 2; expect_err_has "device rxe0 has no port 2"
expect_err_has "qpscope ports: note: -p/--port is now -i/--ib-port (one spelling for one thing across commands); the old one still works"
run "$q" ports -p 1 -i 1
expect_rc 2; expect_err_has "excludes"
run "$q" --json ports -d nosuch0
expect_rc 2
expect_true "JSON usage error names the device" python3 -c '
import json, sys; e = json.loads(sys.argv[1])["error"]; assert e["kind"] == "usage" and "nosuch0" in e["message"]' "$out"

case_ "several devices: the filter picks one"
if rdma link add rxe1 type rxe netdev veth1 2>/dev/null; then
  run "$q" ports --json
  expect_true "both devices listed" python3 -c '
import json, sys; n = sorted(d["name"] for d in json.loads(sys.argv[1])["devices"]); assert n == ["rxe0", "rxe1"], n' "$out"
  run "$q" ports --json -d rxe1 -i 1
  expect_true "only rxe1 port 1" python3 -c '
import json, sys; d = json.loads(sys.argv[1])["devices"]
assert [x["name"] for x in d] == ["rxe1"] and [p["port"] for p in d[0]["ports"]] == [1]
assert any(g.get("ipv4") == "192.0.2.2" and g["netdev"] == "veth1" for g in d[0]["ports"][0]["gids"])' "$out"
  run python3 "$here/compare_ports.py" "$q"
  echo "$out" | tail -1
  expect_rc 0
  rdma link delete rxe1
else
  bad "could not create rxe1 on veth1"
fi

