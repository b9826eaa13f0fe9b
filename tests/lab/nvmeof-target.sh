#!/usr/bin/env bash
# NVMe over Fabrics on RDMA, the target side, for the two-host lab's host B
# (run there with on-b): `up` exports a null_blk namespace as subsystem
# $NQN through nvmet-rdma, listening on 192.0.2.2:4420 (configfs, as
# nvmetcli would); `down` takes it all away again and unloads the modules.
# Exit 0 when done; otherwise the step that failed is named on stderr.
set -u
readonly NQN=nqn.2026-12.lab:qpscope-null CFG=/sys/kernel/config/nvmet
step() { "$@" || { echo "nvmeof-target: failed: $*" >&2; exit 1; }; }
case ${1:-} in
up)
  step modprobe -a null_blk nvmet nvmet-rdma
  mountpoint -q /sys/kernel/config || step mount -t configfs none /sys/kernel/config
  step mkdir "$CFG/subsystems/$NQN"
  step sh -c "echo 1 >'$CFG/subsystems/$NQN/attr_allow_any_host'"
  step mkdir "$CFG/subsystems/$NQN/namespaces/1"
  step sh -c "echo /dev/nullb0 >'$CFG/subsystems/$NQN/namespaces/1/device_path'"
  step sh -c "echo 1 >'$CFG/subsystems/$NQN/namespaces/1/enable'"
  step mkdir "$CFG/ports/1"
  step sh -c "echo rdma >'$CFG/ports/1/addr_trtype'; echo ipv4 >'$CFG/ports/1/addr_adrfam'"
  step sh -c "echo 192.0.2.2 >'$CFG/ports/1/addr_traddr'; echo 4420 >'$CFG/ports/1/addr_trsvcid'"
  step ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"
  ;;
down)
  rm -f "$CFG/ports/1/subsystems/$NQN"
  rmdir "$CFG/ports/1" 2>/dev/null
  [ -e "$CFG/subsystems/$NQN/namespaces/1/enable" ] && echo 0 >"$CFG/subsystems/$NQN/namespaces/1/enable"
  rmdir "$CFG/subsystems/$NQN/namespaces/1" "$CFG/subsystems/$NQN" 2>/dev/null
  modprobe -r nvmet-rdma nvmet null_blk
  [ ! -e "$CFG/subsystems/$NQN" ] || { echo "nvmeof-target: $NQN is still there" >&2; exit 1; }
  ;;
*)
  echo "usage: nvmeof-target.sh up|down" >&2
  exit 2
  ;;
esac
