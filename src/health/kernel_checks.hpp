// doctor's first checks: the kernel's RDMA modules, and whether there is an
// RDMA device at all; with none, the RDMA-capable NICs on the PCI bus and
// the modules that would make them devices. The NIC table is data; the
// checks are pure functions of what the readers gather (unit-tested).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "src/finding.hpp"

namespace qps::health {

// A NIC driver and the module that makes its functions RDMA devices, from
// each RDMA driver's Kconfig and auxiliary/PCI binding in the kernel
// (drivers/infiniband/hw/*): mlx5_ib binds to mlx5_core's functions,
// irdma to ice's and i40e's (X722), bnxt_re to bnxt_en's, and so on. EFA
// and hfi1 are PCI drivers and RDMA drivers at once.
struct RdmaNicDriver {
    std::string_view nic_driver;   // bound to the PCI function
    std::string_view rdma_module;  // what to load for an RDMA device
    std::string_view family;
};
inline constexpr std::array<RdmaNicDriver, 11> rdma_nic_drivers{{
    {"mlx5_core", "mlx5_ib", "NVIDIA/Mellanox ConnectX-4 and later, BlueField"},
    {"mlx4_core", "mlx4_ib", "NVIDIA/Mellanox ConnectX-3"},
    {"ice", "irdma", "Intel E810"},
    {"i40e", "irdma", "Intel X722 (other i40e NICs have no RDMA)"},
    {"bnxt_en", "bnxt_re", "Broadcom NetXtreme-E/C"},
    {"qede", "qedr", "Marvell/QLogic FastLinQ"},
    {"cxgb4", "iw_cxgb4", "Chelsio T4 and later (iWARP)"},
    {"hns3", "hns_roce_hw_v2", "HiSilicon HNS3"},
    {"mana", "mana_ib", "Microsoft Azure Network Adapter"},
    {"efa", "efa", "Amazon Elastic Fabric Adapter"},
    {"hfi1", "hfi1", "Intel Omni-Path HFI"},
}};

// A PCI function with no driver bound: which NIC driver its ids call for,
// from the drivers' PCI id tables (mlx4_pci_table in mlx4/main.c; efa's and
// hfi1's). Other Mellanox functions are mlx5's; other vendors' unbound
// functions cannot be told apart from NICs without RDMA, and are left out.
struct UnboundPciId {
    std::uint16_t vendor, device_lo, device_hi;
    std::string_view nic_driver;
};
inline constexpr std::array<UnboundPciId, 15> unbound_pci_ids{{
    {0x15b3, 0x1002, 0x1010, "mlx4_core"},  // ConnectX-3 (Pro), their VFs
    {0x15b3, 0x6340, 0x6340, "mlx4_core"},  {0x15b3, 0x634a, 0x634a, "mlx4_core"},
    {0x15b3, 0x6354, 0x6354, "mlx4_core"},  {0x15b3, 0x6368, 0x6368, "mlx4_core"},
    {0x15b3, 0x6372, 0x6372, "mlx4_core"},  {0x15b3, 0x6732, 0x6732, "mlx4_core"},
    {0x15b3, 0x673c, 0x673c, "mlx4_core"},  {0x15b3, 0x6746, 0x6746, "mlx4_core"},
    {0x15b3, 0x6750, 0x6750, "mlx4_core"},  {0x15b3, 0x675a, 0x675a, "mlx4_core"},
    {0x15b3, 0x6764, 0x6764, "mlx4_core"},  {0x15b3, 0x676e, 0x676e, "mlx4_core"},
    {0x1d0f, 0xefa0, 0xefa3, "efa"},        // Amazon EFA
    {0x8086, 0x24f0, 0x24f1, "hfi1"},       // Intel Omni-Path HFI
}};

struct PciFunction {
    std::string address;           // 0000:3b:00.0
    std::uint16_t vendor = 0, device = 0;
    std::uint32_t class_code = 0;  // 0x020000 Ethernet, 0x020700 / 0x0c0600 InfiniBand
    std::string driver;            // bound driver, "" when none
};

// Every PCI function under `root`, tolerating unreadable entries.
std::vector<PciFunction> read_pci_functions(const std::string& root = "/sys/bus/pci/devices");
// A module is loaded (or built in with parameters): /sys/module/NAME exists.
bool module_is_loaded(const std::string& name, const std::string& root = "/sys/module");

using LoadedFn = std::function<bool(const std::string&)>;

// id "kernel.modules": ib_core and ib_uverbs (fail: verbs cannot work
// without them), rdma_ucm (warn: rdma_cm users need it).
Finding check_kernel_modules(const LoadedFn& loaded);

// id "devices.present": the RDMA devices libibverbs lists; with none, the
// RDMA-capable NICs on the PCI bus, their drivers and the modprobe line of
// what is missing, or Soft-RoCE when there is no such NIC.
Finding check_devices_found(const std::vector<std::string>& devices, const std::vector<PciFunction>& pci,
                            const LoadedFn& loaded);

}  // namespace qps::health
