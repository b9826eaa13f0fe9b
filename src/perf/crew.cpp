#include "src/perf/crew.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <exception>
#include <optional>
#include <system_error>
#include <poll.h>
#include <sys/eventfd.h>
#include <thread>
#include <unistd.h>

#include "src/error.hpp"
#include "src/perf/link_common.hpp"

namespace qps::perf {

namespace {

// Adds one to an eventfd's count (a write interrupted by a signal is retried).
void eventfd_add_one(int fd)
{
    const std::uint64_t one = 1;
    while (::write(fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
}

// The crew's threads: each keeps its exception (and raises the end
// signal), and counts itself out on `finished` (an eventfd) when it ends.
struct CrewThreads {
    const CrewEnd& end;
    const int finished;
    std::vector<std::exception_ptr> errors;
    std::vector<std::thread> threads;

    // Ends the workers started so far and waits for them (a thread that
    // could not be started, or a coordinator that cannot watch): never
    // leaves a joinable thread behind, which would terminate the process.
    void stop_all()
    {
        end.raise();
        for (auto& t : threads)
            t.join();
        ::close(finished);
    }
};

void start_crew(CrewThreads& crew, const std::vector<int>& cpus,
                const std::function<void(std::uint32_t, const CrewEnd&)>& work)
{
    const auto n = static_cast<std::uint32_t>(cpus.size());
    crew.threads.reserve(n);
    try {
        for (std::uint32_t i = 0; i < n; ++i)
            crew.threads.emplace_back([&crew, &cpus, &work, i] {
                try {
                    pin_cpu(cpus[i] >= 0 ? std::optional<int>(cpus[i]) : std::nullopt);
                    work(i, crew.end);
                } catch (...) {
                    crew.errors[i] = std::current_exception();
                    crew.end.raise();
                }
                eventfd_add_one(crew.finished);
            });
    } catch (const std::system_error& e) {
        crew.stop_all();
        throw SystemError("starting a worker thread", e.code().value());
    }
}

// The peer seen once more: true when it is done or went silent (the crew
// is told to end; `lost` says why when silent).
bool watch_peer(net::PeerWatch& peer, const CrewEnd& end, std::string& lost)
{
    switch (peer.look()) {
    case net::PeerWatch::Peer::running:
        return false;
    case net::PeerWatch::Peer::silent:
        lost = peer.silence_reason();
        [[fallthrough]];
    case net::PeerWatch::Peer::done:
        end.raise();
        return true;
    }
    return false;
}

// Until every worker has ended: the peer watched (its end or silence ends
// the crew; after that it is kept alive), `every_second` called. Returns
// why the peer was lost, or "".
std::string coordinate_crew(CrewThreads& crew, net::PeerWatch& peer, const std::function<void()>& every_second)
{
    const auto n = static_cast<std::uint32_t>(crew.threads.size());
    std::uint64_t done = 0;
    bool peer_signalled = false;
    std::string lost;
    // Waits no longer than the heartbeat interval: the peer's heartbeats
    // wake it anyway, its silence must not let it sleep.
    const int wait_ms = static_cast<int>(every_second ? std::min<std::int64_t>(200, peer.interval().count())
                                                      : peer.interval().count());
    auto next = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (done < n) {
        pollfd p[2]{{crew.finished, POLLIN, 0}, {peer_signalled ? -1 : peer.fd(), POLLIN | POLLRDHUP, 0}};
        if (::poll(p, 2, wait_ms) < 0) {
            if (errno == EINTR)
                continue;
            break;  // cannot watch the socket: end the run rather than hang
        }
        if (p[0].revents & POLLIN) {
            std::uint64_t k = 0;
            if (::read(crew.finished, &k, sizeof k) == sizeof k)
                done += k;
        }
        if (peer_signalled)
            peer.keep_alive();  // this side may still run (bidirectional bw)
        else
            peer_signalled = watch_peer(peer, crew.end, lost);
        if (every_second && std::chrono::steady_clock::now() >= next) {
            next += std::chrono::seconds(1);
            every_second();
        }
    }
    return lost;
}

}  // namespace

CrewEnd::CrewEnd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
    if (fd_ < 0)
        throw SystemError("eventfd", errno);
}

CrewEnd::~CrewEnd() { ::close(fd_); }

void CrewEnd::raise() const { eventfd_add_one(fd_); }

std::string run_crew_threads(const std::vector<int>& cpus, net::PeerWatch& peer,
                             const std::function<void(std::uint32_t, const CrewEnd&)>& work,
                             const std::function<void()>& every_second)
{
    const CrewEnd end;
    const int finished = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (finished < 0)
        throw SystemError("eventfd", errno);
    CrewThreads crew{end, finished, std::vector<std::exception_ptr>(cpus.size()), {}};
    start_crew(crew, cpus, work);
    const std::string lost = coordinate_crew(crew, peer, every_second);
    crew.stop_all();  // every worker has ended unless poll failed; then they are told to
    for (const auto& e : crew.errors)
        if (e)
            std::rethrow_exception(e);
    return lost;
}

}  // namespace qps::perf
