#include "src/net/exchange.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "src/error.hpp"
#include "src/net/interrupt.hpp"

namespace qps::net {

std::string_view role_name(Role role) { return role == Role::client ? "client" : "server"; }

Exchange::Exchange(Channel channel, Role role, std::string test, std::chrono::milliseconds step_timeout)
    : channel_(std::move(channel)), role_(role), test_(std::move(test)), step_timeout_(step_timeout)
{
}

void Exchange::abort(std::string_view reason) noexcept
{
    if (aborted_)
        return;
    aborted_ = true;
    try {
        channel_.send(error_message(reason), std::min(step_timeout_, abort_send_timeout));
    } catch (...) {
        // The peer may be gone already; the local error says what happened.
    }
}

std::optional<Json> Exchange::stalled(std::string_view reason, const Json& evidence,
                                     std::chrono::milliseconds wait) noexcept
{
    if (aborted_)
        return std::nullopt;
    aborted_ = true;
    try {
        channel_.send(stalled_message(reason, evidence), std::min(step_timeout_, abort_send_timeout));
        // The peer answers once it meets the message; whatever it sent
        // before that (its ready, its results) is passed over, and keeps
        // this side waiting as its heartbeats do. A peer that stalled too
        // sent its own "stalled": that is its evidence as well.
        for (;;) {
            const Json theirs = channel_.receive(wait, "the peer's answer to \"stalled\"", Wait::silence);
            const std::string type = message_type(theirs);
            if (type == "stalled")
                return parse_stalled(theirs).evidence;
            if (type == "error")
                return std::nullopt;
        }
    } catch (...) {
        return std::nullopt;  // the peer is gone, silent or unintelligible: no evidence
    }
}

Json Exchange::swap(const Json& mine, std::string_view type, std::chrono::milliseconds timeout, Wait wait)
{
    if (role_ == Role::client) {
        send_part(mine);
        return receive_part(type, timeout, wait);
    }
    Json theirs = receive_part(type, timeout, wait);
    send_part(mine);
    return theirs;
}

void Exchange::send_part(const Json& mine)
{
    try {
        channel_.send(mine, step_timeout_);
    } catch (const TimeoutError&) {
        throw;  // the peer is gone or silent: nobody to tell
    } catch (const OperationError& e) {
        abort(e.what());
        throw;
    }
}

Json Exchange::receive_part(std::string_view type, std::chrono::milliseconds timeout, Wait wait)
{
    const std::string expecting = fmt::format("the \"{}\" message", type);
    Json theirs;
    try {
        theirs = channel_.receive(timeout, expecting, wait);
    } catch (const TimeoutError&) {
        throw;
    } catch (const OperationError& e) {
        abort(e.what());
        throw;
    }
    if (message_type(theirs) == "stalled") {
        aborted_ = true;  // the peer's run stalled: answer with this side's evidence, then report it
        Stalled st;
        try {
            st = parse_stalled(theirs);
        } catch (const OperationError& e) {
            throw OperationError(fmt::format("exchange with {}: peer gave up (its stalled message is invalid: {})",
                                             channel_.peer(), e.what()));
        }
        peer_evidence_ = st.evidence;
        if (answer_stalls_) {
            try {
                channel_.send(stalled_message("answer", answer_stalls_()), std::min(step_timeout_, abort_send_timeout));
            } catch (...) {
                // The peer may have stopped waiting; this side still reports.
            }
        }
        throw OperationError(fmt::format("exchange with {}: peer gave up: {}", channel_.peer(), st.message));
    }
    if (message_type(theirs) == "error") {
        aborted_ = true;  // the peer is leaving: no answer
        std::string why;
        try {
            why = parse_error_message(theirs);
        } catch (const OperationError& e) {
            why = fmt::format("(its error message is invalid: {})", e.what());
        }
        throw OperationError(fmt::format("exchange with {}: peer gave up: {}", channel_.peer(), why));
    }
    return theirs;
}

template <class Parse>
auto Exchange::checked(Parse&& parse)
{
    try {
        return parse();
    } catch (const UsageError& e) {
        abort(e.what());
        throw;
    } catch (const OperationError& e) {
        const std::string what = fmt::format("exchange with {}: {}", channel_.peer(), e.what());
        abort(what);
        throw OperationError(what);
    }
}

Hello Exchange::hello()
{
    const Hello mine{oob_version, std::string(oob_tool), test_, std::string(role_name(role_))};
    const Json theirs = swap(to_message(mine), "hello", step_timeout_);
    return checked([&] {
        Hello h = parse_hello(theirs);
        if (h.test != test_)
            throw UsageError(fmt::format("peer {} runs qpscope {}, this side runs qpscope {}: run the same test on "
                                         "both sides",
                                         channel_.peer(), h.test, test_));
        if (h.role == role_name(role_))
            throw OperationError(fmt::format("peer says it is the {} too", h.role));
        return h;
    });
}

Json Exchange::params(const Json& local, const std::vector<std::string>& must_agree)
{
    const Json theirs = swap(params_message(local, step_timeout_), "params", step_timeout_);
    return checked([&] {
        auto [remote, timeout] = parse_params(theirs);
        peer_timeout_ = timeout;
        const auto mismatches = compare_params(local, remote, must_agree);
        if (!mismatches.empty()) {
            std::string list;
            for (const auto& m : mismatches)
                list += (list.empty() ? "" : "; ") + m;
            const bool connection = std::any_of(mismatches.begin(), mismatches.end(),
                                                [](const std::string& m) { return m.starts_with("connection:"); });
            throw UsageError(fmt::format("parameters differ from peer {}: {}{}", channel_.peer(), list,
                                         connection ? fmt::format(" (give both sides {}, or neither)", given(Given::cm))
                                                    : ""));
        }
        return remote;
    });
}

Endpoint Exchange::endpoints(const Endpoint& local)
{
    const Json theirs = swap(to_message(local), "endpoint", step_timeout_);
    return checked([&] { return parse_endpoint(theirs); });
}

void Exchange::ready() { ready(step_timeout_); }

void Exchange::ready(std::chrono::milliseconds timeout, Wait wait)
{
    const Json theirs = swap(ready_message(), "ready", timeout, wait);
    checked([&] {
        parse_ready(theirs);
        return true;
    });
}

void Exchange::announce_ready() { send_part(ready_message()); }

void Exchange::await_ready(std::chrono::milliseconds timeout, Wait wait)
{
    const Json theirs = receive_part("ready", timeout, wait);
    checked([&] {
        parse_ready(theirs);
        return true;
    });
}

Json Exchange::results(const Json& local) { return results(local, step_timeout_); }

Json Exchange::results(const Json& local, std::chrono::milliseconds timeout, Wait wait)
{
    const Json theirs = swap(results_message(local), "results", timeout, wait);
    return checked([&] { return parse_results(theirs); });
}

}  // namespace qps::net
