// One owning alias per verbs object. Deleters are noexcept and report a
// failing destroy call (destroy verbs return a positive errno) on stderr,
// since a destructor cannot throw; callers that must see the error close
// explicitly first.
#pragma once

#include <cstdio>
#include <cstring>
#include <infiniband/verbs.h>
#include <memory>

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

}  // namespace qps::verbs
