// The options ping-pong and bw share (connection, device, op, transport,
// sizes, iterations or duration, inline, MTU, timeout, CPU), registered and
// converted in one place.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "src/perf/link_common.hpp"

namespace qps::cli {

struct LinkFlags {
    std::string host;
    std::string device;
    unsigned port = 1;
    std::optional<unsigned> gid_index;
    std::string op, transport = "rc", sizes;
    std::uint64_t iterations = 0;
    std::optional<double> duration;
    std::uint64_t warmup = 0;
    std::string inline_mode = "auto";
    std::optional<unsigned> mtu;
    unsigned tcp_port = 18615;
    double timeout_s = 10;
    std::string qp_timeout;
    std::optional<unsigned> retry_cnt;
    std::optional<int> cpu;
    unsigned threads = 1;
    std::string cpus;
    bool cm = false;
    std::optional<unsigned> cm_port;
    std::string bind;
    std::optional<unsigned> tclass, dscp;
    std::optional<unsigned> sl, flow_label, pkey_index, rnr_retry;
    std::string min_rnr_timer;
};

struct LinkDefaults {
    const char* op;
    const char* sizes;
    std::uint64_t iterations;
    std::uint64_t warmup;
    const char* warmup_what;  // "iterations" or "messages per QP"
    const char* thread_owns;  // what each --threads worker has: "its own --qps QPs", "its own pair"
};

// -i/--ib-port and -x/--gid-index; -p/--tcp-port (also `path`'s).
void add_port_options(CLI::App* cmd, unsigned& port, std::optional<unsigned>& gid_index);
void add_tcp_port_option(CLI::App* cmd, unsigned& tcp_port);
// Registers the shared options on `cmd` with these defaults.
void add_link_options(CLI::App* cmd, LinkFlags& f, const LinkDefaults& d);
// Fills the shared part of the options; names the test parameters given
// explicitly (a server compares them with the client's), plus `extra` names.
void to_link_options(const CLI::App* cmd, const LinkFlags& f, perf::LinkOptions& o,
                     const std::vector<const char*>& extra = {});

}  // namespace qps::cli
