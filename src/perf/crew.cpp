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
#include "src/perf/test_common.hpp"

namespace qps::perf {

CrewEnd::CrewEnd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
    if (fd_ < 0)
        throw SystemError("eventfd", errno);
}

CrewEnd::~CrewEnd() { ::close(fd_); }

void CrewEnd::raise() const
{
    const std::uint64_t one = 1;
    while (::write(fd_, &one, sizeof one) < 0 && errno == EINTR) {
    }
}

std::string run_crew_threads(const std::vector<int>& cpus, net::PeerWatch& peer,
                             const std::function<void(std::uint32_t, const CrewEnd&)>& work,
                             const std::function<void()>& every_second)
{
    const auto n = static_cast<std::uint32_t>(cpus.size());
    const CrewEnd end;
    const int finished = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (finished < 0)
        throw SystemError("eventfd", errno);
    std::vector<std::exception_ptr> errors(n);
    std::vector<std::thread> threads;
    threads.reserve(n);
    const std::uint64_t one = 1;
    // Ends the workers started so far and waits for them (a thread that
    // could not be started, or a coordinator that cannot watch): never
    // leaves a joinable thread behind, which would terminate the process.
    auto stop_all = [&] {
        end.raise();
        for (auto& t : threads)
            t.join();
        ::close(finished);
    };
    try {
        for (std::uint32_t i = 0; i < n; ++i)
            threads.emplace_back([&, i] {
                try {
                    pin_cpu(cpus[i] >= 0 ? std::optional<int>(cpus[i]) : std::nullopt);
                    work(i, end);
                } catch (...) {
                    errors[i] = std::current_exception();
                    end.raise();
                }
                while (::write(finished, &one, sizeof one) < 0 && errno == EINTR) {
                }
            });
    } catch (const std::system_error& e) {
        stop_all();
        throw SystemError("starting a worker thread", e.code().value());
    }

    std::uint64_t done = 0;
    bool peer_signalled = false;
    std::string lost;
    // Waits no longer than the heartbeat interval: the peer's heartbeats
    // wake it anyway, its silence must not let it sleep.
    const int wait_ms = static_cast<int>(every_second ? std::min<std::int64_t>(200, peer.interval().count())
                                                      : peer.interval().count());
    auto next = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (done < n) {
        pollfd p[2]{{finished, POLLIN, 0}, {peer_signalled ? -1 : peer.fd(), POLLIN | POLLRDHUP, 0}};
        if (::poll(p, 2, wait_ms) < 0) {
            if (errno == EINTR)
                continue;
            break;  // cannot watch the socket: end the run rather than hang
        }
        if (p[0].revents & POLLIN) {
            std::uint64_t k = 0;
            if (::read(finished, &k, sizeof k) == sizeof k)
                done += k;
        }
        if (peer_signalled) {
            peer.keep_alive();  // this side may still run (bidirectional bw)
        } else {
            switch (peer.look()) {
            case net::PeerWatch::Peer::running:
                break;
            case net::PeerWatch::Peer::silent:
                lost = peer.silence_reason();
                [[fallthrough]];
            case net::PeerWatch::Peer::done:
                peer_signalled = true;
                end.raise();
                break;
            }
        }
        if (every_second && std::chrono::steady_clock::now() >= next) {
            next += std::chrono::seconds(1);
            every_second();
        }
    }
    stop_all();  // every worker has ended unless poll failed; then they are told to
    for (const auto& e : errors)
        if (e)
            std::rethrow_exception(e);
    return lost;
}

}  // namespace qps::perf
