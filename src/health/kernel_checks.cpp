#include "src/health/kernel_checks.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>

namespace qps::health {

namespace {

namespace fs = std::filesystem;

std::uint32_t pci_hex(const fs::path& file)
{
    std::ifstream in(file);
    std::string text;
    in >> text;
    try {
        return static_cast<std::uint32_t>(std::stoul(text, nullptr, 16));
    } catch (const std::exception&) {
        return 0;
    }
}

bool network_class(std::uint32_t class_code)
{
    // 0x02xxxx network controllers (Ethernet, InfiniBand 0x0207), 0x0c06xx
    // InfiniBand as a serial bus (older HCAs).
    return (class_code >> 16) == 0x02 || (class_code >> 8) == 0x0c06;
}

const RdmaNicDriver* rdma_driver_for(std::string_view nic_driver)
{
    const auto it = std::find_if(rdma_nic_drivers.begin(), rdma_nic_drivers.end(),
                                 [&](const RdmaNicDriver& d) { return d.nic_driver == nic_driver; });
    return it == rdma_nic_drivers.end() ? nullptr : &*it;
}

}  // namespace

std::vector<PciFunction> read_pci_functions(const std::string& root)
{
    std::vector<PciFunction> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        PciFunction f;
        f.address = entry.path().filename();
        f.vendor = static_cast<std::uint16_t>(pci_hex(entry.path() / "vendor"));
        f.device = static_cast<std::uint16_t>(pci_hex(entry.path() / "device"));
        f.class_code = pci_hex(entry.path() / "class");
        std::error_code link_ec;
        const fs::path driver = fs::read_symlink(entry.path() / "driver", link_ec);
        if (!link_ec)
            f.driver = driver.filename();
        out.push_back(std::move(f));
    }
    std::sort(out.begin(), out.end(), [](const PciFunction& a, const PciFunction& b) { return a.address < b.address; });
    return out;
}

bool module_is_loaded(const std::string& name, const std::string& root)
{
    std::error_code ec;
    return fs::exists(fs::path(root) / name, ec);
}

Finding check_kernel_modules(const LoadedFn& loaded)
{
    Finding r;
    r.id = "kernel.modules";
    std::vector<std::string> have, missing;
    for (const char* m : {"ib_core", "ib_uverbs", "rdma_ucm"})
        (loaded(m) ? have : missing).emplace_back(m);
    r.seen = {{"loaded", have.empty() ? "none" : fmt::format("{}", fmt::join(have, ", "))},
              {"missing", missing.empty() ? "none" : fmt::format("{}", fmt::join(missing, ", "))}};
    if (missing.empty()) {
        r.status = Status::ok;
        r.summary = "ib_core, ib_uverbs and rdma_ucm are loaded";
        return r;
    }
    const bool verbs_missing = std::any_of(missing.begin(), missing.end(),
                                           [](const std::string& m) { return m != "rdma_ucm"; });
    r.status = verbs_missing ? Status::fail : Status::warn;
    r.summary = fmt::format("not loaded: {}", fmt::join(missing, ", "));
    r.why = verbs_missing ? "ib_core is the kernel's RDMA core and ib_uverbs gives user space its verbs "
                            "(/dev/infiniband/uverbsN): without them no RDMA program runs"
                          : "rdma_ucm gives user space the RDMA connection manager (/dev/infiniband/rdma_cm): "
                            "MPI, NCCL, NVMe-oF and rping connect through it";
    r.fix = fmt::format("modprobe -a {} (and list them in /etc/modules-load.d/rdma.conf to load at boot)",
                        fmt::join(missing, " "));
    return r;
}

Finding check_devices_found(const std::vector<std::string>& devices, const std::vector<PciFunction>& pci,
                            const LoadedFn& loaded)
{
    Finding r;
    r.id = "devices.present";
    if (!devices.empty()) {
        r.status = Status::ok;
        r.seen = {{"devices", fmt::format("{}", fmt::join(devices, ", "))}};
        r.summary = fmt::format("{} RDMA device{}: {}", devices.size(), devices.size() == 1 ? "" : "s",
                                fmt::join(devices, ", "));
        return r;
    }
    r.status = Status::fail;
    r.why = "without an RDMA device there is nothing to run verbs on";
    std::vector<std::string> nics, to_load;
    for (const auto& f : pci) {
        if (!network_class(f.class_code))
            continue;
        const RdmaNicDriver* d = rdma_driver_for(f.driver);
        if (!d && f.driver.empty()) {
            const auto id = std::find_if(unbound_pci_ids.begin(), unbound_pci_ids.end(), [&](const UnboundPciId& u) {
                return u.vendor == f.vendor && f.device >= u.device_lo && f.device <= u.device_hi;
            });
            if (id != unbound_pci_ids.end())
                d = rdma_driver_for(id->nic_driver);
            else if (f.vendor == 0x15b3)
                d = rdma_driver_for("mlx5_core");  // every other Mellanox network function is mlx5's
        }
        if (!d)
            continue;
        const bool nic_bound = !f.driver.empty();
        nics.push_back(fmt::format("{} {} ({:04x}:{:04x}), {}", f.address, d->family, f.vendor, f.device,
                                   nic_bound ? "driver " + f.driver : "no driver bound"));
        for (std::string_view m : {d->nic_driver, d->rdma_module}) {
            const std::string name(m);
            if ((m == d->nic_driver && nic_bound) || loaded(name))
                continue;
            if (std::find(to_load.begin(), to_load.end(), name) == to_load.end())
                to_load.push_back(name);
        }
    }
    r.seen = {{"rdma_nics", nics.empty() ? "none" : fmt::format("{}", fmt::join(nics, "; "))}};
    if (nics.empty()) {
        r.summary = "no RDMA device, and no RDMA-capable NIC on the PCI bus";
        r.fix = "for Soft-RoCE on an Ethernet interface: modprobe rdma_rxe; rdma link add rxe0 type rxe netdev "
                "IFACE";
        return r;
    }
    r.summary = fmt::format("no RDMA device, but RDMA-capable NICs on the PCI bus: {}", fmt::join(nics, "; "));
    r.fix = to_load.empty() ? "the modules are loaded but made no device: look at dmesg for the RDMA driver's "
                              "errors (firmware, RoCE disabled in the NIC's configuration)"
                            : fmt::format("modprobe -a {}", fmt::join(to_load, " "));
    return r;
}

}  // namespace qps::health
