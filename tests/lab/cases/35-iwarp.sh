# Lab cases: iWARP, on siw (Soft-iWARP). Debian's kernel leaves siw out;
# lab/qpscope-lab builds siw.ko from Debian's kernel source and names it
# here (QPSCOPE_LAB_SIW_KO). This file loads it, puts siw0 on a veth pair
# of its own (veth2 198.51.100.1/24, veth3 198.51.100.2/24) and takes it
# all away at the end, so every other case file sees rxe0 alone.
# iWARP QPs connect through rdma_cm only: with --cm ping-pong and bw run on
# them; without it, and for what iWARP or siw cannot do (UD: path and
# --transport ud; atomics), the refusal names the reason before any
# network step. Sourced by tests/lab/run-all with $q set.

iw_ready() { [ "$(cat /sys/class/infiniband/siw0/ports/1/state 2>/dev/null)" = "4: ACTIVE" ]; }
iw_up=0
if [ -z "${QPSCOPE_LAB_SIW_KO:-}" ]; then
  skip "iWARP cases: ${QPSCOPE_LAB_SIW_MISSING:-no siw.ko from lab/qpscope-lab}"
else
  case_ "siw0: Soft-iWARP on veth2, from the siw.ko the lab built"
  # What siw.ko needs first (ib_core, libcrc32c: modinfo says), then siw0.
  iw_setup() {
    # shellcheck disable=SC2046 # a list of module names
    modprobe -a iw_cm rdma_ucm $(modinfo -F depends "$QPSCOPE_LAB_SIW_KO" | tr ',' ' ') &&
      insmod "$QPSCOPE_LAB_SIW_KO" && ip link add veth2 type veth peer name veth3 &&
      ip addr add 198.51.100.1/24 dev veth2 && ip addr add 198.51.100.2/24 dev veth3 &&
      ip link set veth2 up && ip link set veth3 up && rdma link add siw0 type siw netdev veth2 &&
      eventually 20 iw_ready
  }
  run iw_setup
  if [ "$rc" = 0 ]; then
    iw_up=1
    ok "siw0 port 1 ACTIVE"
  else
    bad "siw0 did not come up (modprobe, insmod $QPSCOPE_LAB_SIW_KO, veth2, rdma link add)"
  fi
fi

if [ "$iw_up" = 1 ]; then
  run "$q" --json ports -d siw0
  expect_rc 0
  expect_true "siw0: transport iWARP, node type RNIC (got $(jq -c '.devices[0] | [.transport, .node_type]' <<<"$out" 2>&1))" \
    jq_true '.devices[0] | ((.transport | tostring | test("iWARP")) and (.node_type | tostring | test("RNIC")))' <<<"$out"

  case_ "iWARP without --cm: refused on both sides, naming --cm, before any network step"
  run timeout 60 "$q" ping-pong -d siw0 -p 18681 --timeout 5
  expect_rc 1; expect_err_lines 1
  expect_err_has "siw0 port 1 (transport: iWARP): iWARP QPs connect only through rdma_cm: give --cm on both sides"
  run timeout 60 "$q" bw 198.51.100.1 -d siw0 -p 18681 --timeout 5
  expect_rc 1
  expect_err_has "give --cm on both sides"

  case_ "iWARP: what it cannot do is refused by name (UD: path, --transport ud; siw's atomics)"
  run timeout 60 "$q" path 198.51.100.1 -d siw0 -p 18682 --timeout 5
  expect_rc 1
  expect_err_has "iWARP has RC QPs only, over a TCP stream (no UD): path and --transport ud need UD QPs"
  run timeout 60 "$q" ping-pong 198.51.100.1 -d siw0 -p 18682 --transport ud --timeout 5
  expect_rc 1
  expect_err_has "(no UD)"
  run timeout 60 "$q" ping-pong 198.51.100.1 -d siw0 --cm -p 18682 --op fadd --timeout 5
  expect_rc 2
  expect_err_has "--op fadd: siw0 does no atomics"

  case_ "iWARP has no XRC: siw0's XRC paths (qp create, qp xrcd open, --transport xrc) are refused by name, exit 1"
  siw_xrc="siw0 has no XRC: device_cap_flags lacks XRC (bit 20); XRC needs a device that has it (mlx4, mlx5, hns)"
  run "$q" qp create -d siw0 --transport xrc-send
  expect_rc 1; expect_err_has "$siw_xrc"
  run "$q" qp create -d siw0 --transport xrc-recv --xrcd "$_scratch/siw-xrcd"
  expect_rc 1; expect_err_has "$siw_xrc"
  run "$q" qp xrcd open -d siw0 "$_scratch/siw-xrcd"
  expect_rc 1; expect_err_has "$siw_xrc"
  run timeout 60 "$q" ping-pong 198.51.100.1 -d siw0 -p 18682 --transport xrc --timeout 5
  expect_rc 1; expect_err_lines 1; expect_err_has "--transport xrc: $siw_xrc"
  run timeout 60 "$q" bw -d siw0 -p 18682 --transport xrc --timeout 5
  expect_rc 1; expect_err_has "--transport xrc: $siw_xrc"

  case_ "iWARP with --cm: ping-pong between two siw QPs (the server with -d, the client without)"
  timeout 90 "$q" --json ping-pong -d siw0 --cm -p 18683 --timeout 20 >"$_scratch/iw-server.json" 2>"$_scratch/iw-server.err" &
  iw_server=$!
  run timeout 120 "$q" --json ping-pong 198.51.100.1 --cm -p 18683 -n 200 --timeout 20
  wait "$iw_server"; iw_rc=$?
  expect_true "client 0, server 0 (got $rc, $iw_rc: $(tail -c 300 "$_scratch/iw-server.err") $(tail -c 300 <<<"$err"))" \
    test "$rc/$iw_rc" = 0/0
  expect_true "200 samples on siw0, connected by rdma_cm" \
    jq_true '.client[0].samples == 200 and .test.connection == "rdma_cm" and (.test | tostring | contains("siw0"))' <<<"$out"

  case_ "iWARP with --cm: bw --threads 2 between siw QPs"
  timeout 90 "$q" bw -d siw0 --cm -p 18684 --timeout 20 >/dev/null 2>"$_scratch/iw-server.err" &
  iw_server=$!
  run timeout 120 "$q" --json bw 198.51.100.1 -d siw0 --cm -p 18684 --threads 2 -s 4096 -n 2000 --timeout 20
  wait "$iw_server"; iw_rc=$?
  expect_true "client 0, server 0 (got $rc, $iw_rc: $(tail -c 300 "$_scratch/iw-server.err") $(tail -c 300 <<<"$err"))" \
    test "$rc/$iw_rc" = 0/0
  expect_true "two threads' figures" jq_true '(.threads | length) == 2 and .client_posts[0].messages > 0' <<<"$out"

  case_ "iWARP: doctor --cm -d siw0 runs its loopback through rdma_cm and passes"
  run timeout 120 "$q" --json doctor --cm -d siw0 --interval 0.2
  expect_true "port.loopback ok on siw0 (got $(jq -c '[.findings[] | select(.id == "port.loopback") | [.status, .summary]]' <<<"$out" 2>&1))" \
    jq_true '[.findings[] | select(.id == "port.loopback" and .device == "siw0") | .status] == ["ok"]' <<<"$out"

  case_ "iWARP: qpscope-mesh --cm, 2 ranks on siw0"
  . "$here/mesh-lib.sh"
  run mpi -np 2 "$mesh" --cm -d siw0 "${short[@]}" -o "$_scratch/iw-mesh.json"
  expect_rc 0
  expect_true "both ranks reached at 198.51.100.1, siw0's netdev (got $(jqf '[.ranks[].cm_address] | join(",")' "$_scratch/iw-mesh.json" 2>&1))" \
    test "$(jqf '[.ranks[].cm_address] | join(",")' "$_scratch/iw-mesh.json")" = "198.51.100.1,198.51.100.1"
  expect_true "the pair measured both ways, the data verified" \
    test "$(jqf '[.results[] | select(.status == "ok" and .lat_a and .verified_ab == "ok" and .verified_ba == "ok")] | length' "$_scratch/iw-mesh.json")" = 1
  mesh_done

  case_ "siw0 taken away: the lab is as it was"
  timeout 30 rdma link delete siw0
  ip link del veth2
  rmmod siw
  run "$q" --json ports
  expect_true "rxe0 alone again (got $(jq -c '[.devices[].name]' <<<"$out"))" test "$(jq -c '[.devices[].name]' <<<"$out")" = '["rxe0"]'
fi
