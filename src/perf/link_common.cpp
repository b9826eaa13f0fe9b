#include "src/perf/link_common.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <fmt/format.h>
#include <sched.h>

#include <fmt/ranges.h>

#include "src/decode/decode.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/finding.hpp"
#include "src/host/checks.hpp"
#include "src/json.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/perf/cpu.hpp"
#include "src/perf/sizes.hpp"

namespace qps::perf {

namespace {

// The names of the tests' own enums, in decode's table form (one
// mechanism for every name table).
using decode::EnumEntry;
constexpr std::array<EnumEntry<Op>, 5> op_names{
    {{Op::send, "send"}, {Op::write, "write"}, {Op::read, "read"}, {Op::fadd, "fadd"}, {Op::cas, "cas"}}};
constexpr std::array<EnumEntry<InlineMode>, 3> inline_names{
    {{InlineMode::automatic, "auto"}, {InlineMode::on, "on"}, {InlineMode::off, "off"}}};

// Which op runs on which transport.
struct Allowed {
    Op op;
    ibv_qp_type type;
};
constexpr std::array<Allowed, 13> allowed{{{Op::send, IBV_QPT_RC},
                                           {Op::write, IBV_QPT_RC},
                                           {Op::read, IBV_QPT_RC},
                                           {Op::fadd, IBV_QPT_RC},
                                           {Op::cas, IBV_QPT_RC},
                                           {Op::send, IBV_QPT_UC},
                                           {Op::write, IBV_QPT_UC},
                                           {Op::send, IBV_QPT_UD},
                                           {Op::send, IBV_QPT_XRC_SEND},  // XRC: RC's operations
                                           {Op::write, IBV_QPT_XRC_SEND},
                                           {Op::read, IBV_QPT_XRC_SEND},
                                           {Op::fadd, IBV_QPT_XRC_SEND},
                                           {Op::cas, IBV_QPT_XRC_SEND}}};

template <class T, std::size_t N>
std::string_view name_of(const std::array<EnumEntry<T>, N>& table, T value)
{
    return decode::lookup(std::span<const EnumEntry<T>>(table), value).value_or("?");
}

template <class T, std::size_t N>
T value_of(const std::array<EnumEntry<T>, N>& table, std::string_view name, std::string_view what)
{
    if (const auto v = decode::value_named(std::span<const EnumEntry<T>>(table), name))
        return *v;
    throw OperationError(fmt::format("the peer asked for {} '{}': this side knows {}", what, name,
                                     fmt::join(decode::names_of(std::span<const EnumEntry<T>>(table)), ", ")));
}

}  // namespace

std::vector<std::string> op_words() { return decode::names_of(std::span<const EnumEntry<Op>>(op_names)); }
std::vector<std::string> inline_words() { return decode::names_of(std::span<const EnumEntry<InlineMode>>(inline_names)); }
std::string_view op_name(Op op) { return name_of(op_names, op); }
std::string transport_name(ibv_qp_type type) { return decode::link_qp_type_word(type); }
std::string_view inline_name(InlineMode mode) { return name_of(inline_names, mode); }
Op op_from(std::string_view name) { return value_of(op_names, name, "op"); }
ibv_qp_type transport_from(std::string_view name)
{
    if (const auto t = decode::link_qp_type(name))
        return *t;
    throw OperationError(fmt::format("the peer asked for transport '{}': this side knows {}", name,
                                     fmt::join(decode::link_qp_type_words(), ", ")));
}
InlineMode inline_from(std::string_view name) { return value_of(inline_names, name, "inline mode"); }

std::string_view connection_name(const LinkOptions& o) { return o.cm ? "rdma_cm" : "manual"; }

Json common_params(const LinkOptions& o)
{
    return Json{{"op", op_name(o.op)},
                     {"transport", transport_name(o.transport)},
                     {"size", fmt::format("{}", fmt::join(o.sizes, ","))},
                     {"iterations", o.iterations},
                     {"duration", o.duration_s.value_or(0.0)},
                     {"warmup", o.warmup},
                     {"inline", inline_name(o.inline_mode)},
                     {"mtu", o.mtu ? 128u << *o.mtu : 0u},
                     {"threads", o.threads},
                     {"qp-timeout", o.knobs.ack_timeout},
                     {"retry-cnt", o.knobs.retry_cnt},
                     {"tclass", o.traffic_class_given ? o.knobs.traffic_class : 0},
                     {"sl", o.knobs.sl},
                     {"flow-label", o.knobs.flow_label},
                     {"pkey-index", o.knobs.pkey_index},
                     {"rnr-retry", o.knobs.rnr_retry},
                     {"min-rnr-timer", o.knobs.min_rnr_timer},
                     {"connection", connection_name(o)}};
}

void adopt_common(LinkOptions& o, const Json& p)
{
    try {
        o.op = op_from(p.at("op").get<std::string>());
        o.transport = transport_from(p.at("transport").get<std::string>());
        o.sizes = parse_sizes(p.at("size").get<std::string>());
        o.iterations = p.at("iterations").get<std::uint64_t>();
        o.warmup = p.at("warmup").get<std::uint64_t>();
        o.inline_mode = inline_from(p.at("inline").get<std::string>());
        const auto mtu = p.at("mtu").get<std::uint32_t>();
        o.mtu = decode::mtu_from_bytes(mtu);
        if (mtu && !o.mtu)
            throw OperationError(fmt::format("the client asked for an MTU of {} bytes: valid are 256..4096", mtu));
        o.threads = p.value("threads", 1u);  // a peer from before --threads
        const auto ack_timeout = p.at("qp-timeout").get<std::uint32_t>();
        const auto retry_cnt = p.at("retry-cnt").get<std::uint32_t>();
        if (ack_timeout > unsigned{decode::max_timer_code} || retry_cnt > decode::max_retry)
            throw OperationError(fmt::format("the client asked for ACK timeout code {} and retry count {}: valid are "
                                             "0..{} and 0..{}",
                                             ack_timeout, retry_cnt, decode::max_timer_code, decode::max_retry));
        o.knobs.ack_timeout = static_cast<std::uint8_t>(ack_timeout);
        const auto tclass = p.value("tclass", 0u);
        if (tclass > decode::max_traffic_class)
            throw OperationError(fmt::format("the client asked for traffic class {}: valid are 0..{}", tclass,
                                             decode::max_traffic_class));
        if (tclass) {
            o.knobs.traffic_class = static_cast<std::uint8_t>(tclass);
            o.traffic_class_given = true;
        }
        const auto sl = p.at("sl").get<std::uint32_t>(), flow = p.at("flow-label").get<std::uint32_t>(),
                   pkey = p.at("pkey-index").get<std::uint32_t>(), rnr = p.at("rnr-retry").get<std::uint32_t>(),
                   rnr_timer = p.at("min-rnr-timer").get<std::uint32_t>();
        if (sl > decode::max_sl || flow > decode::max_flow_label || pkey > decode::max_pkey_index ||
            rnr > decode::max_retry || rnr_timer > unsigned{decode::max_timer_code})
            throw OperationError(fmt::format("the client asked for SL {}, flow label {}, P_Key index {}, RNR retry {} "
                                             "and RNR timer code {}: valid are 0..{}, 0..{:#x}, 0..{}, 0..{} and 0..{}",
                                             sl, flow, pkey, rnr, rnr_timer, decode::max_sl, decode::max_flow_label,
                                             decode::max_pkey_index, decode::max_retry, decode::max_timer_code));
        o.knobs.sl = static_cast<std::uint8_t>(sl);
        o.knobs.flow_label = flow;
        o.knobs.pkey_index = static_cast<std::uint16_t>(pkey);
        o.knobs.rnr_retry = static_cast<std::uint8_t>(rnr);
        o.knobs.min_rnr_timer = static_cast<std::uint8_t>(rnr_timer);
        o.knobs.retry_cnt = static_cast<std::uint8_t>(retry_cnt);
        const double duration = p.at("duration").get<double>();
        o.duration_s = duration > 0 ? std::optional<double>(duration) : std::nullopt;
    } catch (const nlohmann::json::exception& e) {
        throw OperationError(fmt::format("the client's test parameters are malformed: {}", e.what()));
    } catch (const UsageError& e) {
        throw OperationError(fmt::format("the client's test parameters are invalid: {}", e.what()));
    }
    if (o.sizes.size() > 64)
        throw OperationError("the client's test asks for more than 64 sizes");
    if (o.threads < 1 || o.threads > max_threads)
        throw OperationError(fmt::format("the client asked for {} threads: valid are 1..{}", o.threads, max_threads));
    if (!o.cpus.empty() && o.cpus.size() != o.threads)
        throw OperationError(fmt::format("the client runs {} thread{} and this server's {} names {} CPU{}: give "
                                         "as many CPUs as threads, or no {}",
                                         o.threads, o.threads == 1 ? "" : "s", given(Given::cpus), o.cpus.size(),
                                         o.cpus.size() == 1 ? "" : "s", given(Given::cpus)));
}

void check_op_transport(Op op, ibv_qp_type type)
{
    const bool ok =
        std::any_of(allowed.begin(), allowed.end(), [&](const Allowed& a) { return a.op == op && a.type == type; });
    if (!ok)
        throw UsageError(fmt::format("{} {} is not possible on {} {}: RC and XRC do send, write, read, fadd, cas; UC "
                                     "send, write; UD send only",
                                     given(Given::op), op_name(op), given(Given::transport), transport_name(type)));
}

void check_threads(const LinkOptions& o)
{
    if (o.threads < 1 || o.threads > max_threads)
        throw UsageError(
            fmt::format("{} {} is out of range: valid are 1..{}", given(Given::threads), o.threads, max_threads));
    if (!o.cpus.empty() && o.cpus.size() != o.threads)
        throw UsageError(fmt::format("{} names {} CPU{} for {} thread{}: name one per thread (a CPU may repeat)",
                                     given(Given::cpus), o.cpus.size(), o.cpus.size() == 1 ? "" : "s", o.threads,
                                     o.threads == 1 ? "" : "s"));
    if (o.threads > 1 && o.cpu)
        throw UsageError(fmt::format("{} {} pins the one thread of a run; with {} {} give {}, one CPU per thread",
                                     given(Given::cpu), *o.cpu, given(Given::threads), o.threads, given(Given::cpus)));
}

LinkSide asked_side(const LinkOptions& o)
{
    LinkSide side;
    side.device = o.device;
    side.port = o.port;
    side.gid_index = o.gid_index;
    return side;
}

std::vector<int> worker_cpus(const LinkOptions& o, const std::string& device)
{
    const std::vector<int> allowed = host::allowed_cpus();
    if (!o.cpus.empty()) {
        for (int c : o.cpus)
            throw_first_failure({host::check_cpu(c, allowed, Given::cpus)});
        return o.cpus;
    }
    if (o.threads <= 1)
        return {};
    std::vector<int> cpus = choose_cpus(o.threads, allowed, kernel::device_local_cpus(device));
    if (cpus.size() < o.threads)
        throw UsageError(fmt::format("{} {} needs a CPU per thread and this process may run on CPUs {} only: "
                                     "give fewer threads, or {} to share CPUs (e.g. {} {})",
                                     given(Given::threads), o.threads, host::cpu_list_text(allowed), given(Given::cpus),
                                     given(Given::cpus),
                                     fmt::join(std::vector<int>(o.threads, allowed.empty() ? 0 : allowed.front()), ",")));
    return cpus;
}

void pin_cpu(const std::optional<int>& cpu)
{
    if (!cpu)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(*cpu, &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0)
        throw SystemError(fmt::format("sched_setaffinity(cpu {})", *cpu), errno, "is that CPU online and allowed?");
}

PinnedHere::PinnedHere(int cpu)
{
    if (cpu < 0)
        return;
    if (::sched_getaffinity(0, sizeof before_, &before_) != 0)
        throw SystemError("sched_getaffinity", errno);
    pin_cpu(cpu);
    pinned_ = true;
}

PinnedHere::~PinnedHere()
{
    if (pinned_)
        ::sched_setaffinity(0, sizeof before_, &before_);  // the CPUs it had: allowed before, so this cannot fail
}

net::Exchange open_exchange(const LinkOptions& o, std::string_view test, const Json& mine, Json& theirs)
{
    const bool client = !o.host.empty();
    // With --cm, --bind is rdma_cm's source; the exchange's TCP takes it too.
    net::Channel channel = client ? net::Channel::connect(o.host, o.tcp_port, o.timeout, o.bind)
                                  : net::Channel::accept_one(o.tcp_port, std::chrono::milliseconds(0), o.bind);
    net::Exchange ex(std::move(channel), client ? net::Role::client : net::Role::server, std::string(test),
                     o.timeout);
    ex.hello();
    // A server names the parameters it was given that differ from the
    // client's; both name another connection mode.
    std::vector<std::string> must_agree{"connection"};
    if (!client)
        must_agree.insert(must_agree.end(), o.server_explicit.begin(), o.server_explicit.end());
    theirs = ex.params(mine, must_agree);
    return ex;
}

std::string barrier_failure(net::Exchange& ex)
{
    try {
        ex.ready();
        return {};
    } catch (const TimeoutError& e) {
        return e.what();
    }
}

void check_atomic_sizes(const LinkOptions& o)
{
    if (!is_atomic(o.op))
        return;
    for (auto s : o.sizes)
        if (s != atomic_bytes)
            throw UsageError(fmt::format("{} {} works on 8-byte operands: {} {} is not possible (give {} 8, or "
                                         "leave {} out)",
                                         given(Given::op), op_name(o.op), given(Given::size), s, given(Given::size),
                                         given(Given::size)));
}

verbs::LinkSetup link_setup(const LinkOptions& o, const LinkSide& side, std::uint32_t largest)
{
    verbs::LinkSetup setup;
    setup.device = side.device;
    setup.port = side.port;
    setup.gid_index = side.gid_index;
    setup.type = o.transport;
    setup.buffer_bytes = std::max<std::uint32_t>(largest, 1);
    setup.mtu = o.mtu;
    setup.gid_kinds = side.gid_kinds;
    setup.opened = side.opened;
    static_cast<verbs::QpKnobs&>(setup) = o.knobs;
    setup.max_inline =
        o.inline_mode == InlineMode::off || one_sided(o.op) ? 0 : std::min<std::uint32_t>(largest, 1024);
    setup.atomics = is_atomic(o.op);
    return setup;
}


void check_ud_fits(const LinkOptions& o, const verbs::LinkResources& res, std::uint32_t largest)
{
    const std::uint32_t mtu = res.local().mtu;
    if (o.transport == IBV_QPT_UD && largest > mtu)
        throw UsageError(
            fmt::format("UD messages must fit the path MTU: {} {} > {} bytes (give smaller sizes, or a larger {})",
                        given(Given::size), largest, mtu, given(Given::mtu)));
}

void fill_header(report::LinkHeader& h, const LinkOptions& o, const LinkSide& side, net::Exchange& ex,
                 const verbs::LinkResources& res, const Clock& clock)
{
    h.role = o.host.empty() ? "server" : "client";
    h.peer = ex.channel().peer();
    h.op = op_name(o.op);
    h.one_sided = one_sided(o.op);
    h.transport = transport_name(o.transport);
    h.device = res.device_name();
    h.port = side.port;
    h.traffic_class = res.traffic_class();
    h.sl = o.knobs.sl;
    h.flow_label = o.knobs.flow_label;
    h.pkey_index = o.knobs.pkey_index;
    if (o.cm && res.cm_id()) {
        h.connection = "rdma_cm";
        h.cm_local = verbs::cm_address_text(rdma_get_local_addr(res.cm_id()));
        h.cm_remote = verbs::cm_address_text(rdma_get_peer_addr(res.cm_id()));
    }
    h.gid_index = res.local().gid_index;
    h.gid_why = res.gid().why;
    h.mtu_bytes = res.path_mtu_bytes();
    h.inline_max = res.granted_inline();
    if (one_sided(o.op))
        h.reads_in_flight = res.reads_in_flight();
    if (o.transport == IBV_QPT_RC) {
        h.ack_timeout = o.knobs.ack_timeout;
        h.retry_cnt = o.knobs.retry_cnt;
        h.rnr_retry = o.knobs.rnr_retry;
        h.min_rnr_timer = o.knobs.min_rnr_timer;
    }
    h.iterations = o.iterations;
    h.warmup = o.warmup;
    h.duration_s = o.duration_s;
    h.clock_source = clock.info().source;
    h.threads = o.threads;
    h.cpus = side.cpus;
    if (h.cpus.empty() && o.cpu)
        h.cpus = {*o.cpu};
}

void prepare_send_wr(ibv_send_wr& wr, ibv_sge& sge, const verbs::LinkResources& res, Op op, std::uint32_t size)
{
    sge.addr = reinterpret_cast<std::uintptr_t>(res.send_buf());  // a read lands here too
    sge.length = size;
    sge.lkey = res.lkey();
    wr.sg_list = &sge;
    wr.num_sge = 1;
    switch (op) {
    case Op::send: wr.opcode = IBV_WR_SEND; break;
    case Op::write: wr.opcode = IBV_WR_RDMA_WRITE; break;
    case Op::read: wr.opcode = IBV_WR_RDMA_READ; break;
    case Op::fadd: wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD; break;
    case Op::cas: wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP; break;
    }
    if (is_atomic(op)) {
        // The peer's counter is the first 8 bytes of its receive half (64-byte
        // aligned); what it held comes back into the send half.
        sge.length = atomic_bytes;
        wr.wr.atomic.remote_addr = res.remote().addr;
        wr.wr.atomic.rkey = res.remote().rkey;
        wr.wr.atomic.compare_add = op == Op::fadd ? 1 : 0;  // cas: the loop sets compare and swap
        wr.wr.atomic.swap = 1;
    } else if (op != Op::send) {
        wr.wr.rdma.remote_addr = res.remote().addr;
        wr.wr.rdma.rkey = res.remote().rkey;
    }
    if (res.type() == IBV_QPT_UD) {
        wr.wr.ud.ah = res.ah();
        wr.wr.ud.remote_qpn = res.remote_qpn();
        wr.wr.ud.remote_qkey = verbs::ud_qkey;
    }
    if (res.type() == IBV_QPT_XRC_SEND)  // every XRC request names the receiving side's XRC SRQ
        wr.qp_type.xrc.remote_srqn = res.remote().srqn;
}

void check_srq(bool srq, Op op, ibv_qp_type transport)
{
    if (!srq)
        return;
    if (op != Op::send)
        throw UsageError(fmt::format("{}: a shared receive queue serves receives, which only {} send consumes (not "
                                     "{} {})",
                                     given(Given::srq), given(Given::op), given(Given::op), op_name(op)));
    if (transport == IBV_QPT_XRC_SEND)
        throw UsageError(fmt::format("{} xrc receives through an XRC SRQ already (one per QP, which its peer's "
                                     "senders name): leave {} out",
                                     given(Given::transport), given(Given::srq)));
    if (transport != IBV_QPT_RC && transport != IBV_QPT_UC)
        throw UsageError(fmt::format("{} is built for connected QPs here: {} rc or uc (not {})", given(Given::srq),
                                     given(Given::transport), transport_name(transport)));
}

void prepare_recv_wr(ibv_recv_wr& wr, ibv_sge& sge, const verbs::LinkResources& res)
{
    if (const verbs::SharedReceive* shared = res.shared_receive()) {  // --srq: the first QP's receive half
        sge.addr = shared->addr;
        sge.length = shared->length;
        sge.lkey = shared->lkey;
    } else {
        sge.addr = reinterpret_cast<std::uintptr_t>(res.recv_buf());
        sge.length = static_cast<std::uint32_t>(res.local().size);
        sge.lkey = res.lkey();
    }
    wr.sg_list = &sge;
    wr.num_sge = 1;
}

}  // namespace qps::perf
