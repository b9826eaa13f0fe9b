#include "src/ops/holder.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <string>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

#include "src/error.hpp"
#include "src/ops/held_qps.hpp"
#include "src/ops/holder_protocol.hpp"

namespace qps::ops {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

extern "C" void on_stop_signal(int) { stop_requested = 1; }

// The holder process: one request per connection, from its own user only,
// on the objects it holds (HeldQps).
class Holder {
public:
    explicit Holder(const HolderOptions& o) : options_(o) {}

    int run();

private:
    Json dispatch(const Json& req);
    void serve(int client);
    // An object a request created, undone when its client left before
    // taking the reply (an interrupted `qp create` or `qp srq create`).
    struct Created {
        Json (HeldQps::*destroy)(const Json&) = nullptr;
        Json request;      // the destroy request that undoes it
        std::string name;  // "QP 0x11", "SRQ 1"
    };
    static std::optional<Created> created_by(const std::string& op, const Json& result);
    void undo(const Created& c);

    HolderOptions options_;
    HeldQps held_;
};

Json Holder::dispatch(const Json& req)
{
    if (req.value("version", 0u) != protocol_version)
        throw UsageError(fmt::format("holder protocol version {} does not match the command's {}; stop the old "
                                     "holder with 'qpscope qp destroy --all'",
                                     protocol_version, req.value("version", 0u)));
    using Handler = Json (HeldQps::*)(const Json&);
    static const std::map<std::string, Handler> handlers{
        {"create", &HeldQps::create}, {"destroy", &HeldQps::destroy}, {"list", &HeldQps::list},
        {"query", &HeldQps::query},   {"modify", &HeldQps::modify},   {"post", &HeldQps::post},
        {"srq_create", &HeldQps::srq_create}, {"srq_query", &HeldQps::srq_query},
        {"srq_modify", &HeldQps::srq_modify}, {"srq_destroy", &HeldQps::srq_destroy}, {"xrcd_open", &HeldQps::xrcd_open},
    };
    const std::string op = req.value("op", "");
    auto it = handlers.find(op);
    if (it == handlers.end())
        throw UsageError(fmt::format("unknown holder request '{}'", op));
    held_.take_events();  // what came since the last look, before the request sees its objects
    return (held_.*it->second)(req);
}

void Holder::serve(int client)
{
    ucred cred{};
    socklen_t len = sizeof cred;
    Json reply;
    std::optional<Created> created;  // undone unless its client takes the reply
    try {
        if (::getsockopt(client, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
            throw SystemError("getsockopt(SO_PEERCRED)", errno);
        if (cred.uid != ::getuid())
            throw UsageError(fmt::format("refused: this holder belongs to uid {}, the request came from uid {}",
                                         ::getuid(), cred.uid));
        const Json req = receive_message(client);
        reply = Json{{"ok", true}, {"result", dispatch(req)}};
        created = created_by(req.value("op", ""), reply["result"]);
    } catch (const UsageError& e) {
        // "marked": the message with the marks of what the user gave, which
        // the client's command line spells (src/error.hpp).
        reply = Json{{"ok", false}, {"error", Json{{"kind", "usage"}, {"message", e.what()}, {"marked", e.marked()}}}};
    } catch (const OperationError& e) {
        reply = Json{{"ok", false}, {"error", Json{{"kind", "failed"}, {"message", e.what()}, {"marked", e.marked()}}}};
    } catch (const std::exception& e) {
        reply = Json{{"ok", false}, {"error", Json{{"kind", "failed"}, {"message", e.what()}}}};
    }
    bool taken = false;
    try {
        send_message(client, reply);
        taken = !created || receive_acknowledgement(client);
    } catch (const std::exception& e) {
        fmt::print(stderr, "qpscope holder: reply lost: {}\n", e.what());
    }
    if (created && !taken)
        undo(*created);
}

std::optional<Holder::Created> Holder::created_by(const std::string& op, const Json& result)
{
    if (op == "create" && result.value("qpn", 0u) != 0) {
        const std::uint32_t qpn = result.value("qpn", 0u);
        return Created{&HeldQps::destroy, Json{{"qpn", qpn}}, fmt::format("QP {:#x}", qpn)};
    }
    if (op == "srq_create" && result.value("id", 0u) != 0) {
        const std::uint32_t id = result.value("id", 0u);
        return Created{&HeldQps::srq_destroy, Json{{"id", id}}, fmt::format("SRQ {}", id)};
    }
    return std::nullopt;
}

void Holder::undo(const Created& c)
{
    try {
        (held_.*c.destroy)(c.request);
        fmt::print(stderr, "qpscope holder: {} destroyed: its client left before taking the reply (interrupted)\n",
                   c.name);
    } catch (const std::exception& e) {
        fmt::print(stderr, "qpscope holder: {}, whose client left, could not be destroyed: {}\n", c.name, e.what());
    }
}

int Holder::run()
{
    ensure_private_dir(options_.dir);
    // One holder per directory: a lock taken for the holder's lifetime.
    const std::string lock_path = options_.dir + "/holder.lock";
    int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0 || ::flock(lock, LOCK_EX | LOCK_NB) != 0) {
        fmt::print(stderr, "qpscope holder: another holder runs in {}\n", options_.dir);
        return 1;
    }
    const std::string path = socket_path(options_.dir);
    ::unlink(path.c_str());  // stale: we hold the lock, so no holder listens there
    int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    ::umask(077);
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener, 16) != 0) {
        fmt::print(stderr, "qpscope holder: cannot listen on {}: {}\n", path, std::strerror(errno));
        return 1;
    }
    ::prctl(PR_SET_NAME, "qpscope-holder");
    std::signal(SIGPIPE, SIG_IGN);
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    ::sigaction(SIGTERM, &sa, nullptr);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGHUP, &sa, nullptr);

    auto last_request = std::chrono::steady_clock::now();
    while (!stop_requested && !held_.none_left()) {
        if (std::chrono::steady_clock::now() - last_request > options_.idle) {
            fmt::print(stderr, "qpscope holder: idle for {} s, exiting\n", options_.idle.count());
            break;
        }
        // Started, but its first create never came (the client was
        // interrupted first): nothing to hold, nothing to wait for.
        if (held_.empty() && std::chrono::steady_clock::now() - last_request > io_timeout) {
            fmt::print(stderr, "qpscope holder: holding nothing for {} s, exiting\n",
                       std::chrono::duration_cast<std::chrono::seconds>(io_timeout).count());
            break;
        }
        // The socket, and the devices' event files: an event (an SRQ's
        // limit reached, a QP's fatal error) is filed with its object when
        // it comes, whatever the clients do.
        std::vector<pollfd> fds{{listener, POLLIN, 0}};
        for (int fd : held_.event_fds())
            fds.push_back({fd, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), 500) <= 0)
            continue;
        if (fds.size() > 1)
            held_.take_events();
        if (!(fds[0].revents & POLLIN))
            continue;
        int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        serve(client);
        ::close(client);
        last_request = std::chrono::steady_clock::now();
    }
    ::close(listener);
    ::unlink(path.c_str());
    held_.release();  // QPs, MRs, CQs first, then PDs and contexts
    ::close(lock);
    return 0;
}

}  // namespace

int run_holder(const HolderOptions& options)
{
    Holder holder(options);
    return holder.run();
}

}  // namespace qps::ops
