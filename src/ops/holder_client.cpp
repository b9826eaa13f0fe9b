#include "src/ops/holder_client.hpp"

#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/error.hpp"
#include "src/net/deadline_io.hpp"
#include "src/util/fd.hpp"

namespace qps::ops {

namespace {

using util::Fd;

// Connects to the holder's socket; returns -1 with errno set when nothing
// listens there. Never blocks: a holder that is stopped or hung accepts no
// connection, and once its queue is full a blocking connect would wait for
// it forever; EAGAIN is retried until `deadline`.
int try_connect(const std::string& path, std::chrono::steady_clock::time_point deadline)
{
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path)
        throw UsageError(fmt::format("holder socket path {} is too long (max {} bytes); set QPSCOPE_HOLDER_DIR",
                                     path, sizeof addr.sun_path - 1));
    std::copy(path.begin(), path.end(), addr.sun_path);
    for (;;) {
        int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
            throw SystemError("socket(AF_UNIX)", errno);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0)
            return fd;
        const int err = errno;
        ::close(fd);
        if (err != EAGAIN || std::chrono::steady_clock::now() >= deadline) {
            errno = err;
            return -1;
        }
        net::sleep_until(net::IoClock::now() + std::chrono::milliseconds(20), "connecting to the holder");
    }
}

// The pid at the other end of a UNIX socket (0 when unknown).
pid_t peer_pid(int fd)
{
    ucred cred{};
    socklen_t len = sizeof cred;
    return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 ? cred.pid : 0;
}

std::string last_log_line(const std::string& dir)
{
    std::ifstream in(dir + "/holder.log");
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty())
            last = line;
    return last;
}

// Starts `qpscope __holder` detached from this process (its own session,
// stdio on DIR/holder.log), then waits until it accepts connections.
int start_holder(const std::string& dir, std::chrono::seconds idle)
{
    const pid_t child = ::fork();
    if (child < 0)
        throw SystemError("fork", errno);
    if (child == 0) {
        ::setsid();
        if (::fork() != 0)
            ::_exit(0);
        int devnull = ::open("/dev/null", O_RDONLY);
        int log = ::open((dir + "/holder.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (devnull >= 0)
            ::dup2(devnull, STDIN_FILENO);
        if (log >= 0) {
            ::dup2(log, STDOUT_FILENO);
            ::dup2(log, STDERR_FILENO);
        }
        ::close_range(3, ~0u, 0);
        if (::chdir("/") != 0)
            ::_exit(127);
        const std::string idle_s = std::to_string(idle.count());
        ::execl("/proc/self/exe", "qpscope", "__holder", "--dir", dir.c_str(), "--idle", idle_s.c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(child, &status, 0);

    const std::string path = socket_path(dir);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        int fd = try_connect(path, deadline);
        if (fd >= 0)
            return fd;
        net::sleep_until(net::IoClock::now() + std::chrono::milliseconds(20), "waiting for the holder to start");
    }
    const std::string why = last_log_line(dir);
    throw OperationError(fmt::format("the holder did not start within 10 s{}", why.empty() ? "" : ": " + why));
}

int connect_holder(const ClientOptions& options)
{
    const std::string dir = holder_dir();
    ensure_private_dir(dir);
    const std::string path = socket_path(dir);
    int fd = try_connect(path, std::chrono::steady_clock::now() + io_timeout);
    if (fd >= 0)
        return fd;
    const int err = errno;
    if (err == EAGAIN)
        throw TimeoutError(fmt::format("the holder at {} accepted no connection within {} s: it is stopped or hung "
                                       "(its process is qpscope-holder: kill -CONT it, or kill it and create the QPs "
                                       "again)",
                                       path, io_timeout.count() / 1000));
    if (err == EACCES)
        throw UsageError(fmt::format("cannot reach the holder at {}: permission denied (it belongs to another "
                                     "user; each user has their own)",
                                     path));
    if (err != ENOENT && err != ECONNREFUSED)
        throw SystemError(fmt::format("connect {}", path), err);
    if (!options.start_if_absent)
        throw OperationError(fmt::format("no holder is running (none was started, or it exited after its last "
                                         "QP was destroyed or it was idle): create a QP first with "
                                         "'qpscope qp create'"));
    return start_holder(dir, options.idle);
}

}  // namespace

Json holder_call(const std::string& op, Json args, const ClientOptions& options)
{
    Fd fd(connect_holder(options));
    args["op"] = op;
    args["version"] = protocol_version;
    // The holder answers within its own bounds (a completion wait is at most
    // what the request asked for); allow that plus the normal I/O timeout.
    std::chrono::milliseconds wait = io_timeout;
    if (args.contains("timeout_ms") && args["timeout_ms"].is_number_unsigned())
        wait += std::chrono::milliseconds(args["timeout_ms"].get<std::uint64_t>());
    Json reply;
    try {
        send_message(fd.get(), args);
        try {
            reply = receive_message(fd.get(), wait);
        } catch (const net::Interrupted& e) {
            throw InterruptedAfterRequest(e.what(), e.signal);
        }
    } catch (const TimeoutError&) {
        const pid_t pid = peer_pid(fd.get());
        throw TimeoutError(fmt::format("the holder{} did not answer the {} request within {} s: it is stopped or hung, "
                                       "its connection still open (kill -CONT {}, or kill it and create the QPs again)",
                                       pid ? fmt::format(" (pid {})", pid) : std::string(), op,
                                       std::chrono::duration_cast<std::chrono::seconds>(wait).count(),
                                       pid ? std::to_string(pid) : std::string("it")));
    }
    if (reply.value("ok", false)) {
        if (op == "create" || op == "srq_create")  // taken: the holder keeps it (else it undoes the create)
            send_acknowledgement(fd.get());
        return reply.value("result", Json::object());
    }
    const Json err = reply.value("error", Json::object());
    const std::string message = err.value("message", "the holder refused the request");
    if (err.value("kind", "") == "usage")
        throw UsageError(err.value("marked", message));
    throw OperationError(err.value("marked", message));
}

}  // namespace qps::ops
