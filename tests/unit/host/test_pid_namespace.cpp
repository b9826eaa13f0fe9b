#include <doctest/doctest.h>
#include <string>

#include "src/host/pid_namespace.hpp"
#include "unit/util.hpp"

using qps::host::nested_pid_namespace;
using qps::host::pid_namespace_note;

TEST_CASE("a nested PID namespace is told from NSpid's numbers, one per namespace from the host's down")
{
    // /proc/self/status of a shell on the host, and of the same in `unshare -pf --mount-proc`.
    const std::string host = "Name:\tbash\nTgid:\t4242\nPid:\t4242\nNSpid:\t4242\nNSsid:\t4242\n";
    const std::string nested = "Name:\tbash\nTgid:\t1\nPid:\t4243\nNSpid:\t4243\t1\nNSsid:\t0\n";
    const std::string twice = "NSpid:\t5000\t300\t1\n";
    CHECK_FALSE(nested_pid_namespace(host));
    CHECK(nested_pid_namespace(nested));
    CHECK(nested_pid_namespace(twice));
    // A kernel before 4.1 has no NSpid line: nothing says nested.
    CHECK_FALSE(nested_pid_namespace("Name:\tbash\nPid:\t4242\n"));
    CHECK_FALSE(nested_pid_namespace(""));
    // NSpgid / NSsid lines are not NSpid.
    CHECK_FALSE(nested_pid_namespace("NSpgid:\t1\t2\nNSpid:\t7\n"));
}

TEST_CASE("what a nested PID namespace does not see is said in one sentence, with the way to see it")
{
    const std::string s = pid_namespace_note();
    CHECK(contains(s, "gives pids only for this namespace's processes"));
    CHECK(contains(s, "nsenter -t 1 -p"));
    CHECK(s.find('\n') == std::string::npos);
}
