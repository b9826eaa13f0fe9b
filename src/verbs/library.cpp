#include "src/verbs/library.hpp"

#include <dlfcn.h>
#include <filesystem>
#include <link.h>

namespace qps::verbs {

// The loaded libibverbs by its soname, not by dladdr() on one of its
// functions: in an executable built without PIE (the sanitised build), a
// function's address is its PLT entry in the executable itself.
std::string libibverbs_version()
{
    void* handle = dlopen("libibverbs.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr)
        return "unknown";
    link_map* map = nullptr;
    std::string path;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr)
        path = map->l_name;
    dlclose(handle);
    if (path.empty())
        return "unknown";
    std::error_code ec;
    const auto real = std::filesystem::canonical(path, ec);
    return ec ? path : real.filename().string();
}

}  // namespace qps::verbs
