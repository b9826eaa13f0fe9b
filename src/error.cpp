#include "src/error.hpp"

#include <cstring>
#include <iterator>
#include <fmt/format.h>

namespace qps {

namespace {
std::string describe(const std::string& call, int err, const std::string& hint)
{
    std::string s = fmt::format("{} failed: {} ({})", call, errno_name(err), std::strerror(err));
    if (!hint.empty())
        s += fmt::format(" — {}", hint);
    return s;
}
}  // namespace

namespace {

struct GivenEntry {
    Given given;
    std::string_view name, words;
};
constexpr GivenEntry given_table[] = {
    {Given::ib_port, "ib_port", "the port"},
    {Given::gid_index, "gid_index", "the GID index"},
    {Given::mtu, "mtu", "the MTU"},
    {Given::send_wr, "send_wr", "the send queue depth"},
    {Given::recv_wr, "recv_wr", "the receive queue depth"},
    {Given::send_sge, "send_sge", "the send SGE count"},
    {Given::recv_sge, "recv_sge", "the receive SGE count"},
    {Given::cq_depth, "cq_depth", "the CQ depth"},
    {Given::max_inline, "max_inline", "the inline size"},
    {Given::op, "op", "the operation"},
    {Given::transport, "transport", "the transport"},
    {Given::size, "size", "the size"},
    {Given::threads, "threads", "the thread count"},
    {Given::cpus, "cpus", "the CPU list"},
    {Given::cpu, "cpu", "the CPU"},
    {Given::device, "device", "the device"},
    {Given::bind, "bind", "the source address"},
    {Given::cm, "cm", "the rdma_cm connection"},
    {Given::post_list, "post_list", "the post list"},
    {Given::cq_mod, "cq_mod", "the completion moderation"},
    {Given::qps, "qps", "the QP count"},
    {Given::window, "window", "the sample window"},
    {Given::interval, "interval", "the interval between samples"},
    {Given::listen, "listen", "the metrics address"},
    {Given::raddr, "raddr", "the remote address"},
    {Given::rkey, "rkey", "the remote key"},
    {Given::cm_port, "cm_port", "the rdma_cm port"},
    {Given::pkey_index, "pkey_index", "the P_Key index"},
    {Given::qkey, "qkey", "the Q_Key"},
    {Given::max_rd_atomic, "max_rd_atomic", "the reads and atomics in flight"},
    {Given::max_dest_rd_atomic, "max_dest_rd_atomic", "the reads and atomics accepted in flight"},
    {Given::dgid, "dgid", "the peer's GID"},
    {Given::srq, "srq", "the SRQ"},
    {Given::max_wr, "max_wr", "the SRQ depth"},
    {Given::max_sge, "max_sge", "the SRQ SGE count"},
    {Given::srq_limit, "srq_limit", "the SRQ limit"},
    {Given::count, "count", "the count of work requests"},
    {Given::xrcd, "xrcd", "the XRC domain's file"},
};

// In the enum's order, so a Given is its index.
constexpr bool in_order()
{
    for (std::size_t i = 0; i < std::size(given_table); ++i)
        if (static_cast<std::size_t>(given_table[i].given) != i)
            return false;
    return true;
}
static_assert(in_order() && std::size(given_table) == given_count,
              "given_table lists every Given, in the enum's order");

const GivenEntry& entry_of(Given given)
{
    return given_table[static_cast<std::size_t>(given)];
}

// A mark: RS, the Given's name, US (control characters no message holds).
constexpr char mark_open = '\x1e', mark_close = '\x1f';

}  // namespace

std::string_view given_words(Given given) { return entry_of(given).words; }
std::string_view given_name(Given given) { return entry_of(given).name; }

std::optional<Given> given_from_name(std::string_view name)
{
    for (const auto& e : given_table)
        if (e.name == name)
            return e.given;
    return std::nullopt;
}

std::string given(Given g)
{
    return std::string(1, mark_open) + std::string(given_name(g)) + mark_close;
}

namespace {

std::string replace_marks(const std::string& text, const std::function<std::string(Given)>& name)
{
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t open = text.find(mark_open, i);
        const std::size_t close = open == std::string::npos ? open : text.find(mark_close, open);
        const auto g = close == std::string::npos ? std::nullopt
                                                  : given_from_name(std::string_view(text).substr(open + 1, close - open - 1));
        if (!g) {  // no mark (further): the rest as it is
            const std::size_t to = open == std::string::npos ? text.size() : open + 1;
            out.append(text, i, to - i);
            i = to;
            continue;
        }
        out.append(text, i, open - i);
        out += name(*g);
        i = close + 1;
    }
    return out;
}

}  // namespace

std::string in_words(const std::string& marked)
{
    return replace_marks(marked, [](Given g) { return std::string(given_words(g)); });
}

std::string MarkedText::naming(const std::function<std::string(Given)>& name) const
{
    return replace_marks(marked_, name);
}

UsageError::UsageError(const std::string& text) : std::runtime_error(in_words(text)), MarkedText(text) {}

OperationError::OperationError(const std::string& text) : std::runtime_error(in_words(text)), MarkedText(text) {}

SystemError::SystemError(std::string c, int e, std::string h)
    : OperationError(describe(c, e, h)), call(in_words(c)), err(e), hint(in_words(h))
{
}

std::string errno_name(int err)
{
    if (const char* n = strerrorname_np(err))
        return n;
    return fmt::format("errno {}", err);
}

}  // namespace qps
