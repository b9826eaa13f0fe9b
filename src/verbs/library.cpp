#include "src/verbs/library.hpp"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <infiniband/verbs.h>

namespace qps::verbs {

std::string libibverbs_version()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&ibv_get_device_list), &info) == 0 || info.dli_fname == nullptr)
        return "unknown";
    std::error_code ec;
    const auto real = std::filesystem::canonical(info.dli_fname, ec);
    return ec ? std::string(info.dli_fname) : real.filename().string();
}

}  // namespace qps::verbs
