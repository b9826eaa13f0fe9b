// Parts of qpscope kept out of its start: a module, a shared object loaded
// with dlopen by the one command that needs it, so its libraries are not
// loaded (nor relocated) at every other command's start. `watch
// --prometheus` and `watch --top` are in qpscope-watch.so with
// prometheus-cpp, civetweb and ncurses (CMakeLists.txt).
//
// A module is looked for beside the executable (a build tree), then where
// the package installs it: QPSCOPE_MODULE_DIR_FROM_BIN (src/config.hpp),
// the path from the executable's directory to the modules'
// ("../lib/x86_64-linux-gnu/qpscope"),
// so an installed qpscope finds its own under any prefix.
#pragma once

#include <string>

namespace qps::util {

// The address of `symbol` in the module `file` ("qpscope-watch.so"),
// loaded at the first call and kept for the process's life.
// OperationError naming `what` (the option that needs it), the places
// looked in and the loader's reason when it cannot be loaded or lacks the
// symbol.
void* module_symbol(const std::string& file, const char* symbol, const std::string& what);

// A directory looked in before the others (the unit tests: their program
// is not beside the module).
void add_module_dir(std::string dir);

}  // namespace qps::util
