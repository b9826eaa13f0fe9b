# Lab case: our RDMA netlink dump (list_kernel_qps) against `rdma -dd -j
# resource show qp`, field by field, for kernel, waiting, connected and
# finished QPs. Its own checks are in tests/lab/netlink_qp.sh.
case_ "kernel QP view agrees with rdma resource show qp"
lister=$(dirname "$q")/tests/list_kernel_qps
run "$here/netlink_qp.sh" "$lister"
echo "$out" | grep -E '^   FAIL' || true
echo "   info netlink_qp.sh: $(tail -n 1 <<<"$out")"
expect_rc 0
