#include "src/net/messages.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <fmt/format.h>
#include <initializer_list>
#include <optional>

#include "src/error.hpp"

namespace qps::net {

namespace {

template <class Range>
std::string list(const Range& values, bool quoted)
{
    std::string s;
    for (const auto& v : values) {
        if (!s.empty())
            s += ", ";
        s += quoted ? fmt::format("\"{}\"", v) : fmt::format("{}", v);
    }
    return s;
}

// A non-negative integer, whether parsed (unsigned) or built in C++ (signed).
std::optional<std::uint64_t> as_unsigned(const Json& v)
{
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
        return static_cast<std::uint64_t>(v.get<std::int64_t>());
    return std::nullopt;
}

// Reads one message strictly; every error names the message type, the
// member and the value.
class Reader {
public:
    Reader(const Json& message, std::string_view type) : m_(message), type_(type)
    {
        if (!m_.is_object())
            throw OperationError(fmt::format("expected the \"{}\" message, got {}", type_, quote(m_)));
        const std::string got = message_type(m_);
        if (got != type_)
            throw OperationError(fmt::format("expected the \"{}\" message, got {}", type_,
                                             got.empty() ? "a message without a type" : quote(got)));
    }

    // Rejects every member not named here ("type" is implied).
    void only(std::initializer_list<std::string_view> members) const
    {
        for (const auto& [name, value] : m_.items()) {
            if (name == "type" || std::find(members.begin(), members.end(), name) != members.end())
                continue;
            throw OperationError(fmt::format("{} message: unknown member {} (it has: {})", type_, quote(name),
                                             list(members, true)));
        }
    }

    bool has(std::string_view name) const { return m_.contains(name); }

    const Json& member(std::string_view name) const
    {
        const auto it = m_.find(name);
        if (it == m_.end())
            throw OperationError(fmt::format("{} message: missing member \"{}\"", type_, name));
        return *it;
    }

    [[noreturn]] void bad(std::string_view name, const Json& value, std::string_view must) const
    {
        throw OperationError(fmt::format("{} message: member \"{}\" is {}, must be {}", type_, name, quote(value), must));
    }

    std::uint64_t unsigned_member(std::string_view name, std::uint64_t max, std::string_view note = {}) const
    {
        const Json& v = member(name);
        const auto n = as_unsigned(v);
        if (!n || *n > max)
            bad(name, v, fmt::format("an integer in 0..{}{}", max, note));
        return *n;
    }

    template <class Range>
    std::string one_of(std::string_view name, const Range& allowed) const
    {
        const Json& v = member(name);
        if (v.is_string()) {
            const auto& s = v.get_ref<const std::string&>();
            if (std::find(allowed.begin(), allowed.end(), s) != allowed.end())
                return s;
        }
        bad(name, v, fmt::format("one of {}", list(allowed, true)));
    }

    const Json& object_member(std::string_view name) const
    {
        const Json& v = member(name);
        if (!v.is_object())
            bad(name, v, "a JSON object");
        return v;
    }

    const std::string& type() const { return type_; }

private:
    const Json& m_;
    std::string type_;
};

constexpr std::uint64_t max24 = (1u << 24) - 1;

// Cuts s to at most max bytes without splitting a UTF-8 sequence.
std::string cut_utf8(std::string_view s, std::size_t max)
{
    if (s.size() <= max)
        return std::string(s);
    std::size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80)
        --n;
    return std::string(s.substr(0, n));
}

}  // namespace

std::string message_type(const Json& message)
{
    if (!message.is_object())
        return {};
    const auto it = message.find("type");
    if (it == message.end() || !it->is_string())
        return {};
    return it->get<std::string>();
}

std::string version_mismatch(std::uint32_t remote, std::uint32_t local)
{
    return fmt::format("peer speaks qpscope exchange version {}, this is version {}", remote, local);
}

std::string gid_text(const std::array<std::uint8_t, 16>& gid)
{
    std::string s;
    for (std::size_t i = 0; i < gid.size(); i += 2) {
        if (i)
            s += ':';
        s += fmt::format("{:02x}{:02x}", gid[i], gid[i + 1]);
    }
    return s;
}

// --- hello

Json to_message(const Hello& h)
{
    return Json{{"type", "hello"}, {"version", h.version}, {"tool", h.tool}, {"test", h.test}, {"role", h.role}};
}

Hello parse_hello(const Json& message)
{
    const Reader r(message, "hello");
    Hello h;
    const Json& tool = r.member("tool");
    if (!tool.is_string() || tool.get_ref<const std::string&>() != oob_tool)
        throw OperationError(fmt::format("peer is not qpscope: hello message member \"tool\" is {}, must be \"{}\"",
                                         quote(tool), oob_tool));
    h.tool = oob_tool;
    h.version = static_cast<std::uint32_t>(r.unsigned_member("version", UINT32_MAX));
    if (h.version != oob_version)
        throw OperationError(version_mismatch(h.version, oob_version));
    r.only({"version", "tool", "test", "role"});
    h.test = r.one_of("test", oob_tests);
    h.role = r.one_of("role", oob_roles);
    return h;
}

// --- endpoint

Json to_message(const Endpoint& e)
{
    Json m{{"type", "endpoint"},   {"qpn", e.qpn},   {"psn", e.psn},         {"lid", e.lid},
           {"gid", gid_text(e.gid)}, {"gid_index", e.gid_index}, {"rkey", e.rkey}, {"addr", e.addr},
           {"size", e.size},         {"mtu", e.mtu}, {"max_dest_rd_atomic", e.max_dest_rd_atomic}};
    if (e.xrc_qpn != 0) {  // XRC only: a peer of another transport never sees them
        m["xrc_qpn"] = e.xrc_qpn;
        m["srqn"] = e.srqn;
    }
    return m;
}

Endpoint parse_endpoint(const Json& message)
{
    const Reader r(message, "endpoint");
    r.only({"qpn", "psn", "lid", "gid", "gid_index", "rkey", "addr", "size", "mtu", "max_dest_rd_atomic", "xrc_qpn",
            "srqn"});
    Endpoint e;
    e.qpn = static_cast<std::uint32_t>(r.unsigned_member("qpn", max24, " (24 bits)"));
    e.psn = static_cast<std::uint32_t>(r.unsigned_member("psn", max24, " (24 bits)"));
    e.lid = static_cast<std::uint16_t>(r.unsigned_member("lid", UINT16_MAX));
    const Json& gid = r.member("gid");
    const char* must_gid = "a GID in IPv6 text form such as \"fe80:0000:0000:0000:5054:00ff:fe12:3456\" (16 bytes)";
    if (!gid.is_string() || gid.get_ref<const std::string&>().size() > 45)
        r.bad("gid", gid, must_gid);
    in6_addr a{};
    if (::inet_pton(AF_INET6, gid.get_ref<const std::string&>().c_str(), &a) != 1)
        r.bad("gid", gid, must_gid);
    std::copy(std::begin(a.s6_addr), std::end(a.s6_addr), e.gid.begin());
    e.gid_index = static_cast<std::uint32_t>(r.unsigned_member("gid_index", 255));
    e.rkey = static_cast<std::uint32_t>(r.unsigned_member("rkey", UINT32_MAX));
    e.addr = r.unsigned_member("addr", UINT64_MAX);
    e.size = r.unsigned_member("size", UINT64_MAX);
    const Json& mtu = r.member("mtu");
    const auto mtu_bytes = as_unsigned(mtu);
    if (!mtu_bytes || std::find(oob_mtus.begin(), oob_mtus.end(), *mtu_bytes) == oob_mtus.end())
        r.bad("mtu", mtu, fmt::format("one of {} (bytes)", list(oob_mtus, false)));
    e.mtu = static_cast<std::uint32_t>(*mtu_bytes);
    const Json& depth = r.member("max_dest_rd_atomic");
    const auto depth_value = as_unsigned(depth);
    if (!depth_value || *depth_value < 1 || *depth_value > 255)
        r.bad("max_dest_rd_atomic", depth, "an integer in 1..255 (RDMA reads in flight)");
    e.max_dest_rd_atomic = static_cast<std::uint32_t>(*depth_value);
    if (r.has("xrc_qpn") || r.has("srqn")) {  // XRC: both or neither
        e.xrc_qpn = static_cast<std::uint32_t>(r.unsigned_member("xrc_qpn", max24, " (24 bits)"));
        e.srqn = static_cast<std::uint32_t>(r.unsigned_member("srqn", max24, " (24 bits)"));
        if (e.xrc_qpn == 0)
            r.bad("xrc_qpn", r.member("xrc_qpn"), "the peer's XRC_RECV QP number (not 0)");
    }
    return e;
}

// --- params

Json params_message(const Json& params, std::chrono::milliseconds timeout)
{
    return Json{{"type", "params"}, {"params", params}, {"timeout_ms", timeout.count()}};
}

Params parse_params(const Json& message)
{
    const Reader r(message, "params");
    r.only({"params", "timeout_ms"});
    const Json& params = r.object_member("params");
    const Json& timeout = r.member("timeout_ms");
    const auto ms = as_unsigned(timeout);
    if (!ms || *ms < min_timeout_ms || *ms > max_timeout_ms)
        r.bad("timeout_ms", timeout,
              fmt::format("an integer in {}..{} (the peer's timeout in ms)", min_timeout_ms, max_timeout_ms));
    for (const auto& [name, value] : params.items()) {
        if (!value.is_string() && !value.is_number() && !value.is_boolean())
            throw OperationError(fmt::format("params message: parameter {} is {}, must be a string, number or boolean",
                                             quote(name), quote(value)));
    }
    return Params{params, std::chrono::milliseconds(*ms)};
}

// --- ready

Json ready_message() { return Json{{"type", "ready"}}; }

Json alive_message() { return Json{{"type", "alive"}}; }

void parse_ready(const Json& message)
{
    const Reader r(message, "ready");
    r.only({});
}

// --- results

Json results_message(const Json& results) { return Json{{"type", "results"}, {"results", results}}; }

Json parse_results(const Json& message)
{
    const Reader r(message, "results");
    r.only({"results"});
    return r.object_member("results");
}

// --- error

Json error_message(std::string_view text)
{
    return Json{{"type", "error"}, {"message", cut_utf8(text, max_error_message_bytes)}};
}

namespace {

// The "message" member of an error or stalled message, on one line.
std::string one_line_message(const Reader& r)
{
    const Json& text = r.member("message");
    if (!text.is_string() || text.get_ref<const std::string&>().size() > max_error_message_bytes)
        r.bad("message", text, fmt::format("a string of at most {} bytes", max_error_message_bytes));
    // Valid UTF-8 (the parser checked); keep it on one line.
    std::string s = text.get<std::string>();
    std::replace_if(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, ' ');
    return s;
}

}  // namespace

std::string parse_error_message(const Json& message)
{
    const Reader r(message, "error");
    r.only({"message"});
    return one_line_message(r);
}

// --- stalled

Json stalled_message(std::string_view text, const Json& evidence)
{
    return Json{{"type", "stalled"}, {"message", cut_utf8(text, max_error_message_bytes)}, {"evidence", evidence}};
}

Stalled parse_stalled(const Json& message)
{
    const Reader r(message, "stalled");
    r.only({"message", "evidence"});
    return Stalled{one_line_message(r), r.object_member("evidence")};
}

// --- params comparison

std::vector<std::string> compare_params(const Json& local, const Json& remote,
                                        const std::vector<std::string>& must_agree)
{
    const auto show = [](const Json& params, const std::string& key) -> std::string {
        if (!params.is_object() || !params.contains(key))
            return "(not set)";
        const Json& v = params[key];
        return v.is_string() ? printable(v.get_ref<const std::string&>()) : quote(v);
    };
    const auto has = [](const Json& params, const std::string& key) {
        return params.is_object() && params.contains(key);
    };
    std::vector<std::string> mismatches;
    for (const auto& key : must_agree) {
        if (!has(local, key) && !has(remote, key))
            continue;
        if (has(local, key) && has(remote, key) && local[key] == remote[key])
            continue;
        mismatches.push_back(fmt::format("{}: local {}, remote {}", key, show(local, key), show(remote, key)));
    }
    return mismatches;
}

}  // namespace qps::net
