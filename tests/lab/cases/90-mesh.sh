# qpscope-mesh under Open MPI, every rank on rxe0 (so only the schedule,
# the faults and the coordination are meaningful here, not the figures):
# all pairs of 4 ranks in 3 rounds with JSON, schema and the heat map
# rendered; odd N with --json on stdout and a rank with an empty GID
# index; the pairs connected through rdma_cm with the QP options; a user
# who is not root. The faults are cases/91-mesh-faults.sh (the
# other lab shard).
. "$here/mesh-lib.sh"

case_ "qpscope-mesh is built"
expect_true "$mesh exists" test -x "$mesh"

case_ "4 ranks, defaults (no -d, no -x): all 6 pairs in 3 rounds, JSON valid, heat map 4x4"
run mpi -np 4 "$mesh" --lat --bw "${short[@]}" -o "$_scratch/m4.json" --svg "$_scratch/m4.svg"
expect_rc 0
expect_out_has "4 ranks, pairs all, 6 pairs in 3 rounds (3 run)"
expect_out_has "ok 6  failed 0  not run 0"
expect_out_has "verdict: healthy"
expect_true "6 results, all ok" test "$(jqf '[.results[] | select(.status == "ok")] | length' "$_scratch/m4.json")" = 6
expect_true "3 rounds of 2 pairs" test "$(jqf '[.schedule[] | length] | join(",")' "$_scratch/m4.json")" = "2,2,2"
expect_true "every pair has both sides' latency and both directions" \
  test "$(jqf '[.results[] | select(.lat_a and .lat_b and .bw_ab and .bw_ba and .verified_ab == "ok" and .verified_ba == "ok")] | length' "$_scratch/m4.json")" = 6
expect_true "every rank on rxe0 with its GID" test "$(jqf '[.ranks[] | select(.device == "rxe0" and (.gid | length) > 0)] | length' "$_scratch/m4.json")" = 4
expect_true "complete, 3 timings" test "$(jqf '"\(.complete) \(.timings | length)"' "$_scratch/m4.json")" = "true 3"
expect_true "the JSON validates against qpscope-mesh.schema.json" valid_mesh "$_scratch/m4.json"
run rsvg-convert -o "$_scratch/m4.png" "$_scratch/m4.svg"
expect_rc 0
run /usr/bin/python3 "$here/svg_grid.py" "$_scratch/m4.png" 4
expect_rc 0
expect_out_has "grid 4x4 ok"

# (The schedule for other N, 5 ranks in 5 rounds among them, is
# tests/unit/mesh/test_plan.cpp's; here one odd N runs for real.) One
# launch for both: each Open MPI start of sanitised ranks costs the lab
# about 20 s of its 2 CPUs.
case_ "odd N, --json on stdout: 3 ranks in 3 rounds, one sits out each; rank 2 started with an empty GID index: its pairs fail naming it, 0-1 (-d rxe0 -x 1) passes, exit 1"
run mpi -np 2 "$mesh" --json --lat -d rxe0 -x 1 "${short[@]}" : -np 1 "$mesh" --json --lat -x 5 "${short[@]}"
expect_rc 1
printf '%s\n' "$out" | sed -n '/^{/,/^}/p' >"$_scratch/m3.json"
expect_true "stdout's document validates" valid_mesh "$_scratch/m3.json"
expect_true "one pair a round" test "$(jqf '[.schedule[] | length] | join(",")' "$_scratch/m3.json")" = "1,1,1"
expect_true "2 pairs failed, each naming rank 2's set-up" \
  test "$(jqf '[.results[] | select(.status == "failed" and (.cause | startswith("rank 2 (lab) could not set up:")))] | length' "$_scratch/m3.json")" = 2
expect_true "the pair without rank 2 passed, latency only" \
  test "$(jqf '"\([.results[] | select(.status == "ok" and .a != 2 and .b != 2)] | length) \(.tests.bw) \(.results[0].bw_ab)"' "$_scratch/m3.json")" = "1 false null"
expect_true "rank 2's set-up error names the empty entry" \
  test "$(jqf '.ranks[2].setup_error | contains("--gid-index 5: entry 5 of rxe0 port 1 is empty")' "$_scratch/m3.json")" = true
expect_true "GID index 1 on ranks 0 and 1" test "$(jqf '[.ranks[] | select(.gid_index == 1)] | length' "$_scratch/m3.json")" = 2

case_ "--cm --tclass 104 --rnr-retry 5: the pair's QPs connect through rdma_cm (rank 0 with -d rxe0, rank 1 without), the knobs in the report"
run mpi -np 1 "$mesh" --cm --tclass 104 --rnr-retry 5 -d rxe0 "${short[@]}" -o "$_scratch/cm.json" : \
  -np 1 "$mesh" --cm --tclass 104 --rnr-retry 5 "${short[@]}"
expect_rc 0
expect_out_has "ok 1  failed 0  not run 0"
expect_true "the JSON validates" valid_mesh "$_scratch/cm.json"
expect_true "tests: connection rdma_cm, traffic class 104, RNR retry 5" \
  test "$(jqf '"\(.tests.connection) \(.tests.knobs.traffic_class) \(.tests.knobs.rnr_retry)"' "$_scratch/cm.json")" = "rdma_cm 104 5"
expect_true "both ranks reached at 192.0.2.1" test "$(jqf '[.ranks[].cm_address] | join(",")' "$_scratch/cm.json")" = "192.0.2.1,192.0.2.1"
expect_true "the pair measured both ways, the data verified" \
  test "$(jqf '[.results[] | select(.status == "ok" and .lat_a and .verified_ab == "ok" and .verified_ba == "ok")] | length' "$_scratch/cm.json")" = 1
# rdma_cm's device file closed to the ranks' user: each rank's set-up
# names it, before any pair (local first).
cm_mode=$(stat -c %a /dev/infiniband/rdma_cm)
chmod 0600 /dev/infiniband/rdma_cm
run timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME=/tmp \
  mpirun --oversubscribe --bind-to none -np 2 "$mesh" --cm "${short[@]}"
chmod "$cm_mode" /dev/infiniband/rdma_cm
expect_rc 1
expect_out_has "rank 0 (lab): set-up failed: rdma_create_event_channel failed: EACCES"
expect_out_has "/dev/infiniband/rdma_cm"
run "$q" mesh --ranks 4 --cm --sl 3
expect_rc 2
expect_err_has "--sl: with --cm, rdma_cm sets it on the QP from what it resolved"

case_ "a user who is not root, uverbs0 at 0600: every rank names the device file and the fix, nothing hangs"
chmod 0600 /dev/infiniband/uverbs0
run timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME=/tmp \
  mpirun --oversubscribe --bind-to none -np 2 "$mesh" "${short[@]}"
chmod 0666 /dev/infiniband/uverbs0
expect_rc 1
expect_out_has "rank 0 (lab): set-up failed: /dev/infiniband/uverbs0 (mode 0600 root:root) cannot be opened read-write by nobody"
expect_out_has "rank 1 (lab): set-up failed:"
expect_out_has "0 (lab) <-> 1 (lab) (round 1): rank 0 (lab) could not set up:"

mesh_done
