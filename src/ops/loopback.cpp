#include "src/ops/loopback.hpp"

#include <algorithm>
#include <exception>
#include <fcntl.h>
#include <fmt/format.h>
#include <thread>
#include <unistd.h>

#include "src/error.hpp"
#include "src/perf/bw/loop.hpp"
#include "src/perf/clock.hpp"
#include "src/perf/pingpong/loop.hpp"
#include "src/perf/link_common.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::perf {

namespace {

struct Pipe {
    int fds[2] = {-1, -1};
    Pipe()
    {
        if (::pipe2(fds, O_CLOEXEC) != 0)
            fds[0] = fds[1] = -1;
    }
    ~Pipe()
    {
        for (int fd : fds)
            if (fd >= 0)
                ::close(fd);
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
};

void connect_pair(verbs::LinkResources& a, verbs::LinkResources& b)
{
    a.connect(b.local());
    b.connect(a.local());
}

void run_write_bandwidth(const LoopbackSpec& spec, const Clock& clock, LoopbackResult& r)
{
    verbs::LinkSetup setup;
    setup.device = spec.device;
    setup.opened = spec.opened ? spec.opened : verbs::open_shared_device(spec.device);  // both QPs on one context
    setup.port = static_cast<std::uint8_t>(spec.port);
    setup.buffer_bytes = 65536;
    verbs::LinkResources a(setup), b(setup);
    connect_pair(a, b);
    // The write's target does nothing: only the sender runs. Its "peer
    // done" is our own signal once it has sent.
    Pipe done;
    if (done.fds[0] < 0) {
        r.bandwidth_error = "pipe2 failed";
        return;
    }
    BwRun run;
    run.op = Op::write;
    run.size = 65536;
    run.duration = spec.bandwidth_time;
    run.warmup = 50;
    run.sends = true;
    run.receives = false;
    run.client = true;
    run.oob_fd = done.fds[0];
    run.silence_limit = spec.silence_limit;
    const int signal_fd = done.fds[1];
    run.on_sent = [signal_fd] { [[maybe_unused]] auto n = ::write(signal_fd, "x", 1); };
    const BwResult bw = run_bandwidth({&a}, run, clock);
    if (bw.aborted || !bw.tx) {
        r.bandwidth_error = bw.abort_reason.empty() ? "the write run did not finish" : bw.abort_reason;
        return;
    }
    r.write_gbps = bw.tx->bytes_per_s * 8 / 1e9;
}

}  // namespace

LoopbackResult run_loopback(const LoopbackSpec& spec)
{
    LoopbackResult r;
    const Clock clock = Clock::system();
    try {
        verbs::LinkSetup setup;
        setup.device = spec.device;
        setup.opened = spec.opened ? spec.opened : verbs::open_shared_device(spec.device);  // both QPs on one context
        setup.port = static_cast<std::uint8_t>(spec.port);
        setup.buffer_bytes = std::max<std::uint32_t>(spec.size, 64);
        verbs::LinkResources a(setup), b(setup);
        r.gid_index = a.gid().index;
        connect_pair(a, b);
        prepost_receives(a, spec.size);
        prepost_receives(b, spec.size);

        LatencyRun run;
        run.op = Op::send;
        run.size = spec.size;
        run.iterations = spec.messages;
        run.warmup = 10;
        run.silence_limit = spec.silence_limit;
        LatencyResult server;
        std::exception_ptr server_error;
        std::thread answer([&] {
            try {
                server = run_latency(b, Role::server, run, clock);
            } catch (...) {
                server_error = std::current_exception();
            }
        });
        const LatencyResult client = run_latency(a, Role::client, run, clock);
        answer.join();
        if (server_error)
            std::rethrow_exception(server_error);
        if (client.aborted || server.aborted) {
            r.error = client.aborted ? client.abort_reason : server.abort_reason;
            r.round_trips = client.exchanged;
            return r;
        }
        r.ok = true;
        r.round_trips = client.measured;
        r.latency_p50_us = static_cast<double>(client.histogram.quantile(0.5)) / 1000.0;
    } catch (const SystemError& e) {
        r.error = e.what();
        r.failed_call = e.call;
        r.err = e.err;
        return r;
    } catch (const std::exception& e) {
        r.error = e.what();
        return r;
    }
    if (spec.bandwidth) {
        try {
            run_write_bandwidth(spec, clock, r);
        } catch (const std::exception& e) {
            r.bandwidth_error = e.what();
        }
    }
    return r;
}

}  // namespace qps::perf
