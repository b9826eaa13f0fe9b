# Lab cases: `qpscope ports` for monitoring: --format prometheus checked by
# promtool and against --json, and --watch (JSON lines, deltas, a redrawn
# table on a terminal, SIGINT) while RDMA traffic runs on rxe0.
# Sourced by tests/lab/run-all with $q (the binary) and $here set.

case_ "ports --format prometheus is valid exposition format (promtool) and agrees with --json"
run "$q" ports --format prometheus
expect_rc 0
prom=$out
promtool=$(find_promtool) || promtool="promtool (missing: scripts/fetch-promtool)"
run "$promtool" check metrics <<<"$prom"
expect_rc 0
run "$q" --json ports
json=$out
expect_true "state, physical state, MTUs, rate and every counter as --json has them" python3 -c '
import json, re, sys
prom, doc = sys.argv[1], json.loads(sys.argv[2])
samples = {}
for line in prom.splitlines():
    if line.startswith("#"):
        continue
    m = re.fullmatch(r"(\w+)\{(.*)\} (\S+)", line)
    assert m, line
    labels = dict(re.findall(r"(\w+)=\"((?:[^\"\\]|\\.)*)\"", m.group(2)))
    samples[(m.group(1), labels.get("device"), labels.get("port"), labels.get("set"))] = float(m.group(3))
dev = [d for d in doc["devices"] if d["name"] == "rxe0"][0]
p = dev["ports"][0]
def v(name, set=None):
    return samples[(name, "rxe0", "1", set)]
assert v("qpscope_port_state") == p["state"]["raw"] == 4, v("qpscope_port_state")
assert v("qpscope_port_physical_state") == p["phys_state"]["raw"] == 5
assert v("qpscope_port_active_mtu_bytes") == p["active_mtu"]["bytes"] == 1024
assert v("qpscope_port_max_mtu_bytes") == p["max_mtu"]["bytes"]
assert v("qpscope_port_rate_bytes_per_second") == p["rate_gbps"] * 1e9 / 8
assert "qpscope_port_state{device=\"rxe0\",port=\"1\",link_layer=\"Ethernet\"} 4" in prom.splitlines()
assert samples[("qpscope_device_info", "rxe0", None, None)] == 1
n = 0
for set in ("counters", "hw_counters"):
    for name, c in p.get(set, {}).items():
        if "value" not in c:
            continue  # {"error": ...}: not exported either
        value = c["value"]
        fam = "qpscope_%s_%s_total" % (set, re.sub(r"[^a-z0-9_]", "_", name.lower()))
        assert v(fam) >= value, (fam, v(fam), value)  # counters only grow between the two runs
        n += 1
    if set in p:
        assert v("qpscope_port_counters_not_exported", set) == 0
assert n >= 10, n  # rxe has a score of hw_counters
print("checked", n, "counters", file=sys.stderr)
' "$prom" "$json"
run "$q" ports --format json
expect_rc 0
expect_true "--format json is the --json document (counters aside)" python3 -c '
import json, sys
def strip(d):
    for dev in d["devices"]:
        for p in dev["ports"]:
            p.pop("counters", None); p.pop("hw_counters", None)
    return d
assert strip(json.loads(sys.argv[1])) == strip(json.loads(sys.argv[2]))' "$out" "$json"
run "$q" ports -d rxe0 -i 1 --format prometheus
expect_true "filters apply: only rxe0 port 1" bash -c '
  grep -v "^#" <<<"$1" | grep -q "device=\"rxe0\",port=\"1\"" && ! grep -v "^#" <<<"$1" | grep -v "device=\"rxe0\"" | grep -q .' _ "$out"
run "$q" ports -d nosuch0 --format prometheus
expect_rc 2; expect_err_lines 1; expect_err_has "nosuch0"
expect_true "no partial metrics on stdout after an error" test -z "$out"

case_ "ports --watch 0.2 --count 3 into a pipe: three JSON lines, deltas from the second on"
start=$(date +%s.%N)
run "$q" ports --watch 0.2 --count 3 -d rxe0
end=$(date +%s.%N)
expect_rc 0
expect_true "exactly 3 lines" test "$(grep -c '' <<<"$out")" -eq 3
expect_true "took at least 2 intervals" python3 -c "import sys; assert $end - $start >= 0.4"
expect_true "every line is JSON (jq), samples 1..3, timestamps increase" bash -c '
  jq -e -s "length == 3 and (map(.sample) == [1,2,3]) and (map(.command) | unique == [\"ports --watch\"])
            and .[0].timestamp < .[1].timestamp and .[1].timestamp < .[2].timestamp" <<<"$1" >/dev/null' _ "$out"
expect_true "first sample: values, no deltas; later samples: delta and per_second for every counter" python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.argv[1].splitlines()]
for i, s in enumerate(lines):
    p = s["devices"][0]["ports"][0]
    assert s["devices"][0]["name"] == "rxe0" and p["port"] == 1 and p["state"]["name"] == "ACTIVE"
    hw = p["hw_counters"]  # a map keyed by counter name, as in ports
    assert isinstance(hw, dict) and "sent_pkts" in hw, hw
    assert len(hw) >= 10 and all(isinstance(c["value"], int) and c["reset"] is False for c in hw.values()), hw
    if i == 0:
        assert s["elapsed_s"] is None and all("delta" not in c and "per_second" not in c for c in hw.values()), hw
    else:
        assert 0.1 <= s["elapsed_s"] <= 5, s["elapsed_s"]  # never under half the interval
        assert all(isinstance(c["delta"], int) and c["delta"] >= 0 and c["per_second"] >= 0 for c in hw.values()), hw
        prev = lines[i - 1]["devices"][0]["ports"][0]["hw_counters"]
        assert all(c["delta"] == c["value"] - prev[name]["value"] for name, c in hw.items())
' "$out"

case_ "ports --watch during RDMA traffic: positive deltas add up; SIGINT ends it with exit 0"
watch_out=$(mktemp)
"$q" ports --watch 0.25 --count 240 -d rxe0 >"$watch_out" 2>&1 &
watch_pid=$!
expect_true "first sample within 10 s" eventually 10 test -s "$watch_out"
timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 500 >/dev/null 2>&1 &
server=$!
sleep 1
run timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 500 127.0.0.1
expect_rc 0
wait "$server"
sleep 1  # a sample after the traffic
kill -INT "$watch_pid"
wait "$watch_pid"
rc=$?; out=$(head -c 2000 "$watch_out"); err=""
expect_rc 0
expect_true "SIGINT: whole lines only, each parses, sent_pkts deltas add up to the traffic" python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin.read().splitlines()]
assert len(lines) >= 3, len(lines)
def sent(s):
    return s["devices"][0]["ports"][0]["hw_counters"]["sent_pkts"]
total = sum(sent(s)["delta"] for s in lines[1:])
assert total == sent(lines[-1])["value"] - sent(lines[0])["value"], total
assert total >= 1000, total  # 500 round trips, both ends on rxe0
assert max(sent(s)["per_second"] for s in lines[1:]) > 0
print(len(lines), "samples,", total, "packets sent", file=sys.stderr)
' <"$watch_out"
rm -f "$watch_out"

case_ "ports --watch: SIGTERM ends it with exit 0 too, after whole lines"
watch_out=$(mktemp)
"$q" ports --watch 0.2 -d rxe0 >"$watch_out" 2>&1 &
watch_pid=$!
expect_true "two samples within 10 s" eventually 10 bash -c '[ "$(grep -c "" "$1")" -ge 2 ]' _ "$watch_out"
kill -TERM "$watch_pid"
wait "$watch_pid"
rc=$?; out=$(head -c 2000 "$watch_out"); err=""
expect_rc 0
expect_true "every line is a whole JSON document" bash -c 'jq -e -s "length >= 2" "$1" >/dev/null' _ "$watch_out"
rm -f "$watch_out"

case_ "ports --watch on a terminal: the table is redrawn in place"
run script -qec "$q ports --watch 0.2 --count 2 -d rxe0" /dev/null
expect_rc 0
expect_true "two frames, each from the top of the screen, with the counter table" python3 -c '
import sys
o = sys.argv[1]
assert o.count("\x1b[H") == 2 and o.count("\x1b[J") == 2, repr(o[:300])
assert "COUNTER" in o and "PER SECOND" in o and "sent_pkts" in o and "{" not in o, repr(o[:300])' "$out"

case_ "ports --watch: bad input"
run "$q" ports --watch 0 -d rxe0
expect_rc 2; expect_err_lines 1; expect_err_has "--watch '0'"
run "$q" ports --watch 1 --format prometheus
expect_rc 2; expect_err_lines 1; expect_err_has "prometheus"
