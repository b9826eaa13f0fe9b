#include <doctest/doctest.h>
#include <string>

#include "src/error.hpp"
#include "src/util/module.hpp"
#include "src/watch/exporter_api.hpp"

using namespace qps;

TEST_CASE("a module that is not there is named, with where it was looked for and what needs it")
{
    try {
        util::module_symbol("qpscope-no-such-module.so", "entry", "watch --top");
        FAIL("a missing module loaded");
    } catch (const OperationError& e) {
        const std::string m = e.what();
        CHECK(m.starts_with("watch --top needs qpscope-no-such-module.so, which is not installed (looked in "));
    }
}

TEST_CASE("qpscope-watch.so, where it is built, gives the exporter's entry point of this build's interface")
{
    util::add_module_dir(QPSCOPE_TEST_MODULE_DIR);
    using Entry = const watch::ExporterApi* (*)();
    const auto entry = reinterpret_cast<Entry>(
        util::module_symbol(watch::watch_module_file, "qpscope_exporter_api", "watch --prometheus"));
    REQUIRE(reinterpret_cast<void*>(entry) != nullptr);
    CHECK(entry()->abi == watch::watch_module_abi);
    CHECK(util::module_symbol(watch::watch_module_file, "qpscope_top_screen_api", "watch --top") != nullptr);
    CHECK_THROWS_AS(util::module_symbol(watch::watch_module_file, "qpscope_no_such_entry", "watch --top"),
                    OperationError);
}
