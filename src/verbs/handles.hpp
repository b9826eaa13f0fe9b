// One owning alias per verbs object. Deleters are noexcept and report a
// failing destroy call (destroy verbs return a positive errno) on stderr,
// since a destructor cannot throw; callers that must see the error close
// explicitly first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <infiniband/verbs.h>
#include <memory>
#include <unistd.h>

namespace qps::verbs {

template <auto Fn>
struct Destroy {
    template <class T>
    void operator()(T* p) const noexcept
    {
        if (int rc = Fn(p); rc != 0)
            std::fprintf(stderr, "qpscope: warning: releasing a verbs object failed: %s\n",
                         std::strerror(rc < 0 ? -rc : rc));
    }
};

inline int free_device_list_rc(ibv_device** l)
{
    ibv_free_device_list(l);
    return 0;
}

using DeviceList = std::unique_ptr<ibv_device*, Destroy<&free_device_list_rc>>;
using Context = std::unique_ptr<ibv_context, Destroy<&ibv_close_device>>;
using ProtectionDomain = std::unique_ptr<ibv_pd, Destroy<&ibv_dealloc_pd>>;
using CompletionQueue = std::unique_ptr<ibv_cq, Destroy<&ibv_destroy_cq>>;
using QueuePair = std::unique_ptr<ibv_qp, Destroy<&ibv_destroy_qp>>;
using SharedReceiveQueue = std::unique_ptr<ibv_srq, Destroy<&ibv_destroy_srq>>;
// ibv_close_xrcd is a static inline of verbs.h: a function of ours with
// external linkage stands for it.
inline int close_xrcd_rc(ibv_xrcd* x) { return ibv_close_xrcd(x); }
using XrcDomain = std::unique_ptr<ibv_xrcd, Destroy<&close_xrcd_rc>>;
inline int dereg_mr_rc(ibv_mr* mr) { return ibv_dereg_mr(mr); }
using MemoryRegion = std::unique_ptr<ibv_mr, Destroy<&dereg_mr_rc>>;


// Memory to register: page-aligned, so that an MR of N bytes pins exactly
// pinned_bytes(N) against RLIMIT_MEMLOCK (an unaligned buffer pins one page
// more).
struct FreeDelete {
    void operator()(std::uint8_t* p) const noexcept { std::free(p); }
};
using PageBuffer = std::unique_ptr<std::uint8_t, FreeDelete>;

inline std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }
inline std::size_t pinned_bytes(std::size_t bytes) { return (bytes + page_size() - 1) / page_size() * page_size(); }
// Zeroed; nullptr when out of memory.
inline PageBuffer page_buffer(std::size_t bytes)
{
    PageBuffer b(static_cast<std::uint8_t*>(std::aligned_alloc(page_size(), pinned_bytes(bytes))));
    if (b)
        std::memset(b.get(), 0, pinned_bytes(bytes));
    return b;
}

}  // namespace qps::verbs
