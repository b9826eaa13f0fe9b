#include "src/util/module.hpp"

#include <dlfcn.h>
#include <map>
#include <mutex>
#include <unistd.h>
#include <vector>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/config.hpp"
#include "src/error.hpp"

namespace qps::util {

namespace {

std::mutex modules_mutex;
std::vector<std::string> first_dirs;          // add_module_dir's
std::map<std::string, void*> loaded;          // file -> dlopen's handle

std::string executable_dir()
{
    std::string path(4096, '\0');
    const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size());
    if (n <= 0 || static_cast<std::size_t>(n) >= path.size())
        return {};
    path.resize(static_cast<std::size_t>(n));
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string{} : path.substr(0, slash);
}

std::vector<std::string> module_dirs()
{
    std::vector<std::string> dirs = first_dirs;
    if (const std::string exe = executable_dir(); !exe.empty()) {
        dirs.push_back(exe);
        dirs.push_back(exe + "/" QPSCOPE_MODULE_DIR_FROM_BIN);
    }
    return dirs;
}

}  // namespace

void add_module_dir(std::string dir)
{
    const std::lock_guard lock(modules_mutex);
    first_dirs.push_back(std::move(dir));
}

void* module_symbol(const std::string& file, const char* symbol, const std::string& what)
{
    const std::lock_guard lock(modules_mutex);
    void*& handle = loaded[file];
    if (handle == nullptr) {
        std::vector<std::string> tried, reasons;
        for (const std::string& dir : module_dirs()) {
            const std::string path = dir + "/" + file;
            if (::access(path.c_str(), F_OK) != 0) {
                tried.push_back(dir);
                continue;
            }
            handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (handle != nullptr)
                break;
            const char* e = ::dlerror();
            reasons.push_back(e != nullptr ? e : path);
        }
        if (handle == nullptr) {
            loaded.erase(file);
            throw OperationError(
                reasons.empty()
                    ? fmt::format("{} needs {}, which is not installed (looked in {}; the qpscope package installs it)",
                                  what, file, fmt::join(tried, ", "))
                    : fmt::format("{} needs {}, which did not load: {}", what, file, fmt::join(reasons, "; ")));
        }
    }
    void* address = ::dlsym(handle, symbol);
    if (address == nullptr)
        throw OperationError(fmt::format("{} needs {} from {}, which has none (a module of another qpscope?)", what,
                                         symbol, file));
    return address;
}

}  // namespace qps::util
