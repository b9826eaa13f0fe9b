#include "src/ops/holder.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
    void undo_create(std::uint32_t qpn);
    void undo_srq_create(std::uint32_t id);

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
    std::uint32_t created = 0;      // a QP this request created: undone unless its client takes the reply
    std::uint32_t created_srq = 0;  // the same for an SRQ
    try {
        if (::getsockopt(client, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
            throw SystemError("getsockopt(SO_PEERCRED)", errno);
        if (cred.uid != ::getuid())
            throw UsageError(fmt::format("refused: this holder belongs to uid {}, the request came from uid {}",
                                         ::getuid(), cred.uid));
        const Json req = receive_message(client);
        reply = Json{{"ok", true}, {"result", dispatch(req)}};
        if (req.value("op", "") == "create")
            created = reply["result"].value("qpn", std::uint32_t{0});
        if (req.value("op", "") == "srq_create")
            created_srq = reply["result"].value("id", std::uint32_t{0});
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
        taken = (created == 0 && created_srq == 0) || receive_acknowledgement(client);
    } catch (const std::exception& e) {
        fmt::print(stderr, "qpscope holder: reply lost: {}\n", e.what());
    }
    if (created != 0 && !taken)
        undo_create(created);
    if (created_srq != 0 && !taken)
        undo_srq_create(created_srq);
}

void Holder::undo_create(std::uint32_t qpn)
{
    try {
        held_.destroy(Json{{"qpn", qpn}});
        fmt::print(stderr, "qpscope holder: QP {:#x} destroyed: its client left before taking the reply "
                           "(interrupted)\n",
                   qpn);
    } catch (const std::exception& e) {
        fmt::print(stderr, "qpscope holder: QP {:#x}, whose client left, could not be destroyed: {}\n", qpn, e.what());
    }
}

void Holder::undo_srq_create(std::uint32_t id)
{
    try {
        held_.srq_destroy(Json{{"id", id}});
        fmt::print(stderr, "qpscope holder: SRQ {} destroyed: its client left before taking the reply "
                           "(interrupted)\n",
                   id);
    } catch (const std::exception& e) {
        fmt::print(stderr, "qpscope holder: SRQ {}, whose client left, could not be destroyed: {}\n", id, e.what());
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
