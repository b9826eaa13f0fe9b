#!/usr/bin/python3
"""Compares `qpscope ports --json` field by field with what ibv_devinfo -v,
`rdma link show` and sysfs print on the same boot. Prints one "ok"/"FAIL"
line per field; exits 1 if any field differs.

Usage: compare_ports.py QPSCOPE
"""
import ipaddress
import json
import os
import re
import subprocess
import sys

results = {"ok": 0, "fail": 0}


def check(what, ours, theirs):
    if ours == theirs:
        results["ok"] += 1
        print(f"   ok   {what}: {ours!r}")
    else:
        results["fail"] += 1
        print(f"   FAIL {what}: qpscope {ours!r}, reference {theirs!r}")


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=60).stdout


def parse_devinfo(text):
    """ibv_devinfo -v -> {dev: {"attrs": {...}, "cap_names": [...], "ports": {n: {...}}}}"""
    devices, dev, port, in_caps = {}, None, None, False
    for line in text.splitlines():
        m = re.match(r"^hca_id:\s*(\S+)", line)
        if m:
            dev = devices.setdefault(m.group(1), {"attrs": {}, "cap_names": [], "ports": {}, "gids": {}})
            port, in_caps = None, False
            continue
        if dev is None or not line.strip():
            continue
        m = re.match(r"^\t\tport:\s*(\d+)", line)
        if m:
            port = dev["ports"].setdefault(int(m.group(1)), {})
            in_caps = False
            continue
        m = re.match(r"^\t+GID\[\s*(\d+)\]:\s*(\S+), (.+)$", line)
        if m and port is not None:
            dev["gids"][int(m.group(1))] = (m.group(2), m.group(3).strip())
            continue
        m = re.match(r"^\t+([a-z_0-9]+):\s*(.*)$", line)
        if m:
            key, value = m.group(1), m.group(2).strip()
            in_caps = key == "device_cap_flags"
            (port if port is not None else dev["attrs"])[key] = value
            continue
        if in_caps and re.match(r"^\t{5}[A-Z_0-9]+$", line):
            dev["cap_names"].append(line.strip())
    return devices


def num(text):
    """'0x1f', '12', '4096 (5)' -> int of the first token."""
    return int(text.split()[0], 0)


def paren(text):
    """'PORT_ACTIVE (4)' -> 4"""
    return int(re.search(r"\((\d+)\)", text).group(1))


def main():
    qpscope = sys.argv[1]
    ours = json.loads(run(qpscope, "ports", "--json"))
    ref = parse_devinfo(run("ibv_devinfo", "-v"))
    links = {f'{l["ifname"]}/{l["port"]}': l for l in json.loads(run("rdma", "-j", "link", "show"))}

    check("schema_version", ours["schema_version"], 2)
    check("device names", sorted(d["name"] for d in ours["devices"]), sorted(ref))
    for d in ours["devices"]:
        r = ref[d["name"]]
        a = r["attrs"]
        name = d["name"]
        check(f"{name} transport", d["transport"]["raw"], paren(a["transport"]))
        for key in ("fw_ver", "node_guid", "sys_image_guid"):
            check(f"{name} {key}", d[key], a[key])
        check(f"{name} vendor_id", d["vendor_id"]["raw"], num(a["vendor_id"]))
        check(f"{name} hw_ver", d["hw_ver"]["raw"], num(a["hw_ver"]))
        for key in ("vendor_part_id", "phys_port_cnt"):
            check(f"{name} {key}", d[key], num(a[key]))
        compared = 0
        for key, value in d["limits"].items():
            if key in a:
                check(f"{name} {key}", value, num(a[key]))
                compared += 1
        check(f"{name} limits compared (at least 25)", compared >= 25, True)
        check(f"{name} atomic_cap", d["atomic_cap"]["raw"], paren(a["atomic_cap"]))
        check(f"{name} device_cap_flags raw", d["device_cap_flags"]["raw"] & 0xFFFFFFFF,
              num(a["device_cap_flags"]))
        check(f"{name} device_cap_flags names", d["device_cap_flags"]["names"], r["cap_names"])
        if "device_cap_flags_ex" in a:
            check(f"{name} device_cap_flags_ex", d["device_cap_flags"]["raw"], int(a["device_cap_flags_ex"], 16))

        for p in d["ports"]:
            n = p["port"]
            rp = r["ports"][n]
            where = f"{name}/{n}"
            check(f"{where} state", p["state"]["raw"], paren(rp["state"]))
            check(f"{where} state name", "PORT_" + p["state"]["name"], rp["state"].split()[0])
            check(f"{where} phys_state", (p["phys_state"]["name"], p["phys_state"]["raw"]),
                  (rp["phys_state"].split()[0], paren(rp["phys_state"])))
            check(f"{where} max_mtu", (p["max_mtu"]["bytes"], p["max_mtu"]["raw"]),
                  (num(rp["max_mtu"]), paren(rp["max_mtu"])))
            check(f"{where} active_mtu", (p["active_mtu"]["bytes"], p["active_mtu"]["raw"]),
                  (num(rp["active_mtu"]), paren(rp["active_mtu"])))
            check(f"{where} link_layer", p["link_layer"]["name"], rp["link_layer"])
            for ours_key, ref_key in (("sm_lid", "sm_lid"), ("lid", "port_lid"), ("lmc", "port_lmc"),
                                      ("max_msg_sz", "max_msg_sz"), ("bad_pkey_cntr", "bad_pkey_cntr"),
                                      ("qkey_viol_cntr", "qkey_viol_cntr"), ("sm_sl", "sm_sl"),
                                      ("pkey_tbl_len", "pkey_tbl_len"), ("gid_tbl_len", "gid_tbl_len"),
                                      ("subnet_timeout", "subnet_timeout"),
                                      ("init_type_reply", "init_type_reply")):
                check(f"{where} {ours_key}", p[ours_key], num(rp[ref_key]))
            check(f"{where} port_cap_flags", p["port_cap_flags"]["raw"], num(rp["port_cap_flags"]))
            check(f"{where} port_cap_flags2", p["port_cap_flags2"]["raw"], num(rp["port_cap_flags2"]))
            check(f"{where} max_vl_num", p["max_vl_num"]["raw"], paren(rp["max_vl_num"]))
            check(f"{where} active_width", (p["active_width"]["name"], p["active_width"]["raw"]),
                  (rp["active_width"].split()[0], paren(rp["active_width"])))
            check(f"{where} active_speed", (p["active_speed"]["lane_gbps"], p["active_speed"]["raw"]),
                  (float(rp["active_speed"].split()[0]), paren(rp["active_speed"])))

            # GID table: same valid entries, same addresses and types.
            ref_gids = {i: (ipaddress.ip_address(g), t) for i, (g, t) in r["gids"].items()}
            our_gids = {g["index"]: (ipaddress.ip_address(g["gid"]), g["type"]["name"])
                        for g in p["gids"] if "gid" in g}
            check(f"{where} GID table", our_gids, ref_gids)

            # rdma link show: state, physical state, netdev.
            link = links[where]
            check(f"{where} rdma state", p["state"]["name"], link["state"])
            check(f"{where} rdma physical_state", p["phys_state"]["name"], link["physical_state"])
            netdevs = {g.get("netdev") for g in p["gids"] if g.get("netdev")}
            check(f"{where} rdma netdev", netdevs, {link["netdev"]})

            # sysfs: rate "10 Gb/sec (1X FDR10)", hw_counters listing.
            sysport = f"/sys/class/infiniband/{name}/ports/{n}"
            with open(f"{sysport}/rate") as f:
                m = re.match(r"([\d.]+) Gb/sec \((\S+) (\S+)\)", f.read())
            check(f"{where} sysfs rate", (p["rate_gbps"], p["active_width"]["name"], p["active_speed"]["name"]),
                  (float(m.group(1)), m.group(2), m.group(3)))
            for sub in ("counters", "hw_counters"):
                path = f"{sysport}/{sub}"
                if os.path.isdir(path):
                    names = sorted(set(os.listdir(path)) - {"lifespan"})
                    ours_names = sorted(p.get(sub, {}))
                    check(f"{where} {sub} names", ours_names, names)
                else:
                    check(f"{where} no {sub}", sub in p, False)

    print(f"compare_ports: {results['ok']} fields agree, {results['fail']} differ")
    sys.exit(1 if results["fail"] else 0)


main()
