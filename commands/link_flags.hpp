// The options ping-pong and bw share (connection, device, op, transport,
// sizes, iterations or duration, inline, MTU, timeout, CPU), registered and
// converted in one place.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "src/perf/link_common.hpp"

namespace qps::commands {

// The QP knobs production sets (--tclass/--dscp, --sl, --flow-label,
// --pkey-index, --qp-timeout, --retry-cnt, --rnr-retry, --min-rnr-timer):
// ping-pong, bw, doctor's loopback and the mesh take the same options.
struct KnobFlags {
    std::string qp_timeout;
    std::optional<unsigned> retry_cnt;
    std::optional<unsigned> tclass, dscp;
    std::optional<unsigned> sl, flow_label, pkey_index, rnr_retry;
    std::string min_rnr_timer;
    bool tclass_given() const { return tclass || dscp; }
};

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
    KnobFlags knobs;
    std::optional<int> cpu;
    unsigned threads = 1;
    std::string cpus;
    bool cm = false;
    std::optional<unsigned> cm_port;
    std::string bind;
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
// Which knobs a command takes: all, or all but RNR's (path's UD QP
// receives no RNR NAK; its --qp-timeout and --retry-cnt are what its round
// trip is judged against).
enum class KnobSet { all, no_rnr };
// Registers the knobs.
void add_knob_options(CLI::App* cmd, KnobFlags& f, KnobSet set = KnobSet::all);
// The knobs as given over the defaults. UsageError for a value that does
// not parse, and for an RC knob on `transport` (its word: `transport_word`).
verbs::QpKnobs to_knobs(const KnobFlags& f, ibv_qp_type transport, std::string_view transport_word);
// What --cm leaves to rdma_cm, one rule for every command that takes it
// (ping-pong, bw, doctor's loopback, the mesh): UsageError naming the
// first option given beside it: a transport but RC, -x (rdma_cm picks the
// GID of `gid_hint`), -m, --sl, --flow-label, --pkey-index.
struct BesideCm {
    explicit BesideCm(const KnobFlags& k) : knobs(k) {}
    const KnobFlags& knobs;
    ibv_qp_type transport = IBV_QPT_RC;
    std::string_view transport_word = "rc";
    std::optional<unsigned> gid_index;
    std::string_view gid_hint;
    std::optional<unsigned> mtu;
};
void check_beside_cm(const BesideCm& b);
// The names of the knobs given on `cmd` ("tclass" for --dscp too), as the
// test parameters a server compares.
std::vector<std::string> knob_names_given(const CLI::App* cmd);

// Registers the shared options on `cmd` with these defaults.
void add_link_options(CLI::App* cmd, LinkFlags& f, const LinkDefaults& d);
// Fills the shared part of the options; names the test parameters given
// explicitly (a server compares them with the client's), plus `extra` names.
void to_link_options(const CLI::App* cmd, const LinkFlags& f, perf::LinkOptions& o,
                     const std::vector<const char*>& extra = {});

}  // namespace qps::commands
