# Lab cases of the kernel's RDMA consumers (two-host lab): NVMe over Fabrics
# on RDMA for real. B exports a null_blk namespace through nvmet-rdma
# (tests/lab/nvmeof-target.sh), A connects with nvme-rdma through
# /dev/nvme-fabrics, reads from it, and qpscope names the kernel's QPs by
# their consumer: `qp list` and `qp query` show nvme_rdma, the target's
# address and the controller (nvme0, live) for the QPs whose own owner is
# rdma_cm. Torn down after: no controller, no target, modules unloaded.
# Sourced by tests/lab/run-all with $q and $here set.
if ! command -v on-b >/dev/null; then
  case_ "NVMe over Fabrics on RDMA"
  skip "no host B (this boot is not lab/qpscope-lab --hosts 2)"
  return 0
fi
source "$here/schema-lib.sh"
readonly nvme_nqn=nqn.2026-12.lab:qpscope-null
jqo() { jq -r "$1" <<<"$out"; }
# The controller of that subsystem on A ("" when none).
nvme_ctrl() {
  local c
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$nvme_nqn" ] && { basename "$c"; return; }
  done
}

case_ "NVMe-oF over RDMA: B's target, A's connection, I/O"
run on-b timeout 60 "$here/nvmeof-target.sh" up
expect_rc 0
run modprobe nvme-rdma
expect_rc 0
run timeout 60 sh -c "echo 'nqn=$nvme_nqn,transport=rdma,traddr=192.0.2.2,trsvcid=4420' >/dev/nvme-fabrics"
expect_rc 0
ctrl=$(nvme_ctrl)
expect_true "a controller of $nvme_nqn on A ($ctrl)" test -n "$ctrl"
expect_true "$ctrl is live within 30 s" eventually 30 bash -c '[ "$(cat /sys/class/nvme/$1/state)" = live ]' _ "$ctrl"
run timeout 60 dd if="/dev/${ctrl}n1" of=/dev/null bs=4k count=64 iflag=direct
expect_rc 0
# The kernel's view of the same QPs, to compare with.
cm_json=$(rdma -j resource show cm_id)
nvme_qpns=$(jq -r '[.[] | select(.comm == "nvme_rdma") | .lqpn] | sort | map(tostring) | join(" ")' <<<"$cm_json")
expect_true "rdma resource show cm_id names nvme_rdma's QPs ($nvme_qpns)" test -n "$nvme_qpns"

case_ "qp list (no -d): the kernel's QPs of nvme_rdma named by their consumer, its target and the controller"
run "$q" --json qp list
expect_rc 0
expect_valid qp-list
expect_true "each QP of nvme_rdma's IDs is listed with consumer nvme_rdma, remote 192.0.2.2:4420, serves $ctrl (live)" \
  jq_true --arg qpns "$nvme_qpns" --arg ctrl "$ctrl" '
    ($qpns | split(" ") | map(tonumber)) as $want
    | [.qps[] | select(.consumer == "nvme_rdma")] as $mine
    | ($mine | map(.qpn.raw) | sort) == $want
      and all($mine[]; .comm == "rdma_cm" and .remote == "192.0.2.2:4420" and .serves == ($ctrl + " (live)"))' <<<"$out"
expect_true "the GSI QP has no consumer" jq_true 'all(.qps[] | select(.type.name == "GSI"); .consumer == null)' <<<"$out"
run "$q" qp list
expect_rc 0
expect_true "the text table's row for a QP of nvme_rdma: rdma_cm, nvme_rdma, the target, $ctrl (live)" \
  bash -c 'grep -qE "rdma_cm +.*nvme_rdma +192\.0\.2\.2:4420 +$1 \(live\)" <<<"$2"' _ "$ctrl" "$out"

case_ "qp list -d rxe0 and qp query: the same consumer"
run "$q" --json qp list -d rxe0
expect_rc 0
expect_true "-d rxe0 lists nvme_rdma's QPs too" jq_true '[.qps[] | select(.consumer == "nvme_rdma")] | length > 0' <<<"$out"
first_qpn=${nvme_qpns%% *}
run "$q" --json qp query "$first_qpn"
expect_rc 0
expect_valid qp-query
expect_true "qp query $first_qpn: consumer nvme_rdma, its state CONNECT, the target, $ctrl live, its NQN" \
  jq_true --arg ctrl "$ctrl" --arg nqn "$nvme_nqn" '.qp.consumer | .owner == "nvme_rdma" and .remote == "192.0.2.2:4420"
      and .cm_state.name == "CONNECT" and .serves == $ctrl and .serves_state == "live" and .serves_target == $nqn' <<<"$out"
run "$q" qp query "$first_qpn"
expect_rc 0
expect_out_has "nvme_rdma"
expect_out_has "$nvme_nqn"

case_ "cm list (no -d): nvme_rdma's IDs serve $ctrl (live); as nobody the same (RDMA netlink shows every ID to every user)"
run "$q" --json cm list
expect_rc 0
expect_valid cm-list
expect_true "every ID of nvme_rdma to 192.0.2.2:4420 serves $ctrl (live)" jq_true --arg ctrl "$ctrl" '
  [.cm_ids[] | select(.comm == "nvme_rdma")] as $mine
  | ($mine | length) > 0 and all($mine[]; .remote == "192.0.2.2:4420" and .serves == ($ctrl + " (live)"))' <<<"$out"
root_serves=$(jq -c '[.cm_ids[] | select(.comm == "nvme_rdma") | [.qpn.raw, .serves]] | sort' <<<"$out")
run setpriv --reuid 65534 --regid 65534 --clear-groups "$q" --json cm list
expect_rc 0
expect_true "as nobody: the same IDs serving the same controller" \
  test "$(jq -c '[.cm_ids[] | select(.comm == "nvme_rdma") | [.qpn.raw, .serves]] | sort' <<<"$out")" = "$root_serves"
run setpriv --reuid 65534 --regid 65534 --clear-groups "$q" qp list
expect_rc 0
expect_true "as nobody: qp list's rows of nvme_rdma name $ctrl (live)" \
  bash -c 'grep -qE "rdma_cm +.*nvme_rdma +192\.0\.2\.2:4420 +$1 \(live\)" <<<"$2"' _ "$ctrl" "$out"

case_ "in a PID namespace below the host's: kernel QPs shown (Linux 5.5 on), a host process's QP without pid named as such, and how to name it"
# Since Linux 5.5 RDMA netlink shows every resource to every PID namespace
# but gives pids only of the asker's namespace: a QP of a process outside it
# comes with neither pid nor name, and is no kernel consumer's.
run "$q" --json qp create
expect_rc 0
held_qpn=$(jq -r '.qps[0].qpn.raw' <<<"$out")
ns=(unshare --pid --fork --mount-proc)
run "${ns[@]}" "$q" --json qp list
expect_rc 0
expect_valid qp-list
expect_true "qp list: pid_namespace nested; nvme_rdma's QPs name $ctrl; the holder's QP $held_qpn has no pid and no comm" jq_true \
  --arg ctrl "$ctrl" --argjson held "$held_qpn" \
  '.pid_namespace == "nested"
   and ([.qps[] | select(.consumer == "nvme_rdma" and .serves == ($ctrl + " (live)"))] | length) > 0
   and any(.qps[]; .qpn.raw == $held and .pid == null and .comm == "")' <<<"$out"
run "${ns[@]}" "$q" qp list
expect_rc 0
expect_out_has "this runs in a PID namespace below the host's: the kernel shows every QP and rdma_cm ID of the host but gives pids only for this namespace's processes"
run "${ns[@]}" "$q" --json cm list
expect_rc 0
expect_valid cm-list
expect_true "cm list: pid_namespace nested, nvme_rdma's IDs shown" jq_true \
  '.pid_namespace == "nested" and ([.cm_ids[] | select(.comm == "nvme_rdma")] | length) > 0' <<<"$out"
run "${ns[@]}" "$q" --json doctor
expect_valid doctor
expect_true "doctor: qp.summary counts nvme_rdma's QPs and 1 QP of a process outside this PID namespace, and says how to name it" jq_true \
  'any(.findings[]; .id == "qp.summary" and (.summary | test("kernel QPs? \\(nvme_rdma\\), 1 QP of processes outside this PID namespace; none stuck")) and (.why | contains("nsenter -t 1 -p")))' <<<"$out"
run "$q" --json qp list
expect_true "on the host: pid_namespace host, the held QP with the holder's pid" jq_true --argjson held "$held_qpn" \
  '.pid_namespace == "host" and any(.qps[]; .qpn.raw == $held and .pid > 0 and .comm == "qpscope-holder")' <<<"$out"
run "$q" qp destroy --all
expect_rc 0

case_ "doctor (no -d) with the controller live: storage.nvme_rdma ok, naming $ctrl and its target; qp.summary counts nvme_rdma's QPs"
run "$q" --json doctor
expect_valid doctor
echo "   info $(jq -r '.findings[] | select(.id == "qp.summary" or (.id | startswith("qp.stuck"))) | .id + ": " + .summary' <<<"$out" | tr '\n' ';')"
expect_true "qp.summary counts kernel QPs of nvme_rdma, none stuck" jq_true \
  'any(.findings[]; .id == "qp.summary" and (.summary | test("[0-9]+ kernel QPs? \\(nvme_rdma\\); none stuck")))' <<<"$out"
expect_true "storage.nvme_rdma ok for $ctrl to 192.0.2.2:4420" jq_true --arg ctrl "$ctrl" \
  'any(.findings[]; .id == "storage.nvme_rdma" and .status == "ok" and (.summary | contains("controller " + $ctrl + " over RDMA to 192.0.2.2:4420")))' <<<"$out"

case_ "B drops RoCE (UDP 4791) on ingress: $ctrl leaves live; doctor fails it, naming the controller, the target and the way to look; restored, live again and doctor says so"
dmesg_before=$(dmesg | wc -l)
on-b sh -c 'tc qdisc add dev eth0 clsact && tc filter add dev eth0 ingress protocol ip u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop'
# The keep-alive (kato 5 s) notices first; the I/O below makes it sooner.
timeout 20 dd if="/dev/${ctrl}n1" of=/dev/null bs=4k count=8 iflag=direct 2>/dev/null &
outage_dd=$!
expect_true "$ctrl leaves live within 120 s" eventually 120 bash -c '[ "$(cat /sys/class/nvme/$1/state)" != live ]' _ "$ctrl"
outage_state=$(cat "/sys/class/nvme/$ctrl/state")
run "$q" --json doctor
expect_rc 1
expect_valid doctor
expect_true "storage.nvme_rdma fails for $ctrl ($outage_state): the target, the state's meaning, qpscope path to it" jq_true --arg ctrl "$ctrl" '
  any(.findings[]; .id == "storage.nvme_rdma" and .status == "fail"
      and (.summary | contains("controller " + $ctrl + " over RDMA to 192.0.2.2:4420")) and (.summary | contains("not live"))
      and (.fix | contains("qpscope path 192.0.2.2")) and (.why | length > 0))' <<<"$out"
run "$q" doctor
expect_out_has "not live"
on-b sh -c 'tc qdisc del dev eth0 clsact'
expect_true "$ctrl is live again within 180 s (the kernel reconnects every reconnect_delay s)" \
  eventually 180 bash -c '[ "$(cat /sys/class/nvme/$1/state)" = live ]' _ "$ctrl"
# (Its dd only: a bare wait would wait for the schema validator too.)
wait "$outage_dd" 2>/dev/null
run "$q" --json doctor
expect_true "storage.nvme_rdma ok again for $ctrl" jq_true --arg ctrl "$ctrl" \
  'any(.findings[]; .id == "storage.nvme_rdma" and .status == "ok" and (.summary | contains($ctrl)))' <<<"$out"

case_ "explain --log of the outage's own dmesg lines: nvme-rdma's timeout, error recovery, reconnect and its return, decoded"
outage_log=$(dmesg | tail -n +"$((dmesg_before + 1))")
run "$q" --json explain --log - <<<"$outage_log"
expect_rc 0
expect_valid explain
for ev in nvme-io-timeout nvme-error-recovery nvme-reconnecting nvme-reconnected; do
  expect_true "the outage's lines hold $ev, its source nvme-rdma" jq_true --arg ev "$ev" \
    'any(.lines[].found[]; .topic == "kernel-event" and .name == $ev and (.source | contains("nvme-rdma")))' <<<"$out"
done
expect_true "a keep-alive's blk status, if logged, is decoded (10: BLK_STS_IOERR)" jq_true \
  '[.lines[].found[] | select(.pattern == "nvme-keepalive-blk-status")] | all(.decoded and .name != "")' <<<"$out"

case_ "NVMe-oF torn down: no controller, no target, no QP of nvme_rdma left"
on-b sh -c 'tc qdisc del dev eth0 clsact 2>/dev/null; true'
[ -n "$ctrl" ] && echo 1 >"/sys/class/nvme/$ctrl/delete_controller"
expect_true "the controller is gone within 30 s" eventually 30 bash -c '[ -z "$(for c in /sys/class/nvme/nvme*; do [ "$(cat $c/subsysnqn 2>/dev/null)" = "$1" ] && echo $c; done)" ]' _ "$nvme_nqn"
modprobe -r nvme-rdma 2>/dev/null
run on-b timeout 60 "$here/nvmeof-target.sh" down
expect_rc 0
expect_true "no cm_id of nvme_rdma or nvmet_rdma on either host" \
  bash -c '! rdma -j resource show cm_id | grep -q nvme && ! on-b rdma -j resource show cm_id | grep -q nvme'
sch_done
