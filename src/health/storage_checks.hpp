// doctor's checks of the kernel's storage consumers of RDMA: each NVMe-oF
// controller over RDMA, live or not, with its target and the way to look
// at the path to it. Pure; unit-tested.
#pragma once

#include <vector>

#include "src/finding.hpp"
#include "src/kernel/consumers.hpp"

namespace qps::health {

// One finding (id "storage.nvme_rdma") per controller whose transport is
// rdma: ok when live; fail otherwise, naming the controller, its target,
// its subsystem, what its state means and the fix. None for a host without
// one.
std::vector<Finding> nvme_rdma_findings(const std::vector<kernel::NvmeController>& controllers);

}  // namespace qps::health
