#!/usr/bin/env bash
# Runs inside the lab (see bench/verbs-cost): bench/verbs-cost.c's variants
# under valgrind --tool=callgrind --toggle-collect=measured, each at N1 and
# N2, then reduces the files. Prints per variant:
#   var <variant> <unit> <msgs_per_unit> <total> <ours> <provider> <libc> <other> <raw_total> <spins/unit>
#       instructions per unit (round trip for the send variants, operation
#       for D), spins taken out with the empty-poll cost of El/Ex; raw_total
#       is dIr/dN before that
#   fn <variant> <class> <calls/unit> <self_ir/unit> <function>   (self cost, N2 - N1)
#   sym <offset> <name> <object>   librxe's entry points by offset (callgrind's names)
#   fail <variant> <n> <what>
# Usage: verbs-cost-guest.sh BINARY N1 N2 [VARIANTS...]
set -euo pipefail
bin=$(realpath "$1") n1=$2 n2=$3
shift 3
variants=("$@")
((${#variants[@]})) || variants=(El Ex A B Bs Bp C BC Ag BCg Dl Dx)
here=$(cd "$(dirname "$0")" && pwd)
out=/tmp/verbs-cost
mkdir -p "$out"
for v in "${variants[@]}"; do
  for n in "$n1" "$n2"; do
    if ! timeout 900 valgrind --tool=callgrind --toggle-collect=measured --dump-line=no --compress-pos=no \
         --callgrind-out-file="$out/$v.$n.cg" "$bin" rxe0 "$v" "$n" >"$out/$v.$n.out" 2>"$out/$v.$n.err"; then
      echo "fail $v $n $(grep -v '^==' "$out/$v.$n.err" | tail -n 2 | tr '\n' ' ')"
      rm -f "$out/$v.$n.cg"
    fi
  done
done
cat "$out"/*.out | grep '^sym ' | sort -u || true

python3 - "$out" "$bin" "$n1" "$n2" "$here" "${variants[@]}" <<'PY'
import collections, os, re, sys
out, binary, n1, n2, here = sys.argv[1], os.path.realpath(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
variants = sys.argv[6:]
sys.path.insert(0, here)
from cost_reduce import parse

def klass(obj):
    if os.path.realpath(obj or "") == binary:
        return "ours"
    b = os.path.basename(obj or "")
    if re.match(r"lib.*-rdmav\d+\.so|libibverbs\.so", b):
        return "provider"
    if re.match(r"libc\.so", b):
        return "libc"
    return "other"

names = {}
for f in os.listdir(out):
    if f.endswith(".out"):
        for line in open(os.path.join(out, f)):
            p = line.split()
            if p and p[0] == "sym":
                names[(os.path.basename(p[3]), p[1])] = p[2]

def load(v, n):
    path = f"{out}/{v}.{n}.cg"
    if not os.path.exists(path):
        return None
    spins = None
    for line in open(f"{out}/{v}.{n}.out"):
        p = line.split()
        if p and p[0] == "variant":
            spins = int(p[p.index("spins") + 1])
    summary, selfc, calls, *_ = parse(path)
    by = collections.Counter()
    for (ob, fn), ir in selfc.items():
        by[klass(ob)] += ir
    return sum(by.values()), by, spins, selfc, calls

CLASSES = ("ours", "provider", "libc", "other")
data = {v: (load(v, n1), load(v, n2)) for v in variants}
dn = n2 - n1
spin_cost = {}
for e in ("El", "Ex"):
    a, b = data.get(e, (None, None))
    if a and b:
        spin_cost[e] = {k: (b[1][k] - a[1][k]) / (b[2] - a[2]) for k in CLASSES}

def label(ob, fn):
    m = names.get((os.path.basename(ob or ""), fn))
    return f"{fn}({m})" if m else fn

for v in variants:
    a, b = data[v]
    if not (a and b):
        continue
    unit, per = ("op", 1) if v.startswith("D") else ("roundtrip", 2) if not v.startswith("E") else ("poll", 1)
    ds = b[2] - a[2]
    c = spin_cost.get("Ex" if v in ("B", "Bp", "BC", "Dx", "Ex") else "El") if not v.startswith("E") else None
    parts = {k: ((b[1][k] - a[1][k]) - (c[k] * ds if c else 0)) / dn for k in CLASSES}
    print("var", v, unit, per, f"{sum(parts.values()):.1f}", *(f"{parts[k]:.1f}" for k in CLASSES),
          f"{(b[0] - a[0]) / dn:.1f}", f"{ds / dn:.3f}")
    for key in set(a[3]) | set(b[3]):
        d = (b[3].get(key, 0) - a[3].get(key, 0)) / dn
        if abs(d) >= 0.5:
            calls = (b[4].get(key, 0) - a[4].get(key, 0)) / dn
            print("fn", v, klass(key[0]), f"{calls:.3f}", f"{d:.1f}", label(*key), os.path.basename(key[0] or ""))
PY
