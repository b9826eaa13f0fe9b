#include "src/ops/loopback.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <memory>
#include <exception>
#include <fcntl.h>
#include <fmt/format.h>
#include <thread>
#include <unistd.h>

#include "src/decode/gid.hpp"
#include "src/error.hpp"
#include "src/perf/bw/loop.hpp"
#include "src/perf/clock.hpp"
#include "src/perf/pingpong/loop.hpp"
#include "src/perf/link_common.hpp"
#include "src/verbs/cm.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::ops {

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

// Two RC QPs of `setup` connected to each other. The rdma_cm sides are
// declared first: their event channels outlive the IDs the QPs hold.
struct Pair {
    std::unique_ptr<verbs::CmSide> client_side, server_side;
    std::unique_ptr<verbs::LinkResources> a, b;  // a: the client (drives), b: the server
};

// rdma_cm: b's listener on the address (an ephemeral port), a resolves it and
// connects while a thread accepts, as a server would; b rejects with its
// reason when its resources fail, so a never waits for an answer.
void cm_connect_pair(const LoopbackSpec& spec, const verbs::LinkSetup& setup, Pair& p)
{
    p.server_side = std::make_unique<verbs::CmSide>();
    p.server_side->listen(spec.cm_address, 0);
    const std::uint16_t port = ntohs(rdma_get_src_port(p.server_side->listener()));
    p.client_side = std::make_unique<verbs::CmSide>();
    verbs::CmTarget target;
    target.host = spec.cm_address;
    target.port = port;
    target.take_knobs(spec.knobs, spec.knobs.traffic_class != 0);
    verbs::CmId id = p.client_side->resolve(target);
    p.a = std::make_unique<verbs::LinkResources>(setup, id);
    std::exception_ptr server_error;
    std::thread accept([&] {
        try {
            std::uint32_t index = 0;
            rdma_conn_param theirs{};
            verbs::CmId request = p.server_side->next_request(spec.silence_limit, index, theirs);
            rdma_cm_id* raw = request.get();
            try {
                p.b = std::make_unique<verbs::LinkResources>(setup, request);
            } catch (const std::exception& e) {
                if (request)
                    p.server_side->reject(raw, fmt::format("qpscope loopback: {}", e.what()));
                throw;
            }
            p.server_side->accept(p.b->cm_id(), p.b->cm_param(&theirs), spec.silence_limit);
            p.b->cm_established();
        } catch (...) {
            server_error = std::current_exception();
        }
    });
    try {
        p.client_side->connect(p.a->cm_id(), p.a->cm_param(), 0, spec.silence_limit,
                               fmt::format("{} port {} (this host's listener)", spec.cm_address, port));
    } catch (...) {
        accept.join();
        if (server_error)
            std::rethrow_exception(server_error);  // the cause; the client only saw its reject
        throw;
    }
    accept.join();
    if (server_error)
        std::rethrow_exception(server_error);
    p.a->cm_established();
    p.a->cm_peer(p.b->local());
    p.b->cm_peer(p.a->local());
}

Pair connected_pair(const LoopbackSpec& spec, const verbs::LinkSetup& setup)
{
    Pair p;
    if (spec.cm) {
        if (spec.cm_address.empty())
            throw OperationError(fmt::format("rdma_cm needs an IP address on {} port {}'s netdev, and it has none",
                                             spec.device, spec.port));
        cm_connect_pair(spec, setup, p);
        return p;
    }
    p.a = std::make_unique<verbs::LinkResources>(setup);
    p.b = std::make_unique<verbs::LinkResources>(setup);
    p.a->connect(p.b->local());
    p.b->connect(p.a->local());
    return p;
}

verbs::LinkSetup loopback_setup(const LoopbackSpec& spec, std::uint32_t buffer_bytes)
{
    verbs::LinkSetup setup;
    static_cast<verbs::QpKnobs&>(setup) = spec.knobs;
    setup.device = spec.device;
    setup.opened = spec.opened ? spec.opened : verbs::open_shared_device(spec.device);  // both QPs on one context
    setup.port = static_cast<std::uint8_t>(spec.port);
    setup.buffer_bytes = buffer_bytes;
    return setup;
}

void run_write_bandwidth(const LoopbackSpec& spec, const perf::Clock& clock, LoopbackResult& r)
{
    Pair pair = connected_pair(spec, loopback_setup(spec, 65536));
    verbs::LinkResources& a = *pair.a;
    // The write's target does nothing: only the sender runs. Its "peer
    // done" is our own signal once it has sent.
    Pipe done;
    if (done.fds[0] < 0) {
        r.bandwidth_error = "pipe2 failed";
        return;
    }
    perf::BwRun run;
    run.op = perf::Op::write;
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
    const perf::BwResult bw = perf::run_bandwidth({&a}, run, clock);
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
    const perf::Clock clock = perf::Clock::system();
    try {
        Pair pair = connected_pair(spec, loopback_setup(spec, std::max<std::uint32_t>(spec.size, 64)));
        verbs::LinkResources &a = *pair.a, &b = *pair.b;
        r.gid_index = a.gid().index;  // rdma_cm's choice once connected
        r.gid = decode::format_gid(a.gid().gid);
        perf::prepost_receives(a, spec.size);
        perf::prepost_receives(b, spec.size);

        perf::LatencyRun run;
        run.op = perf::Op::send;
        run.size = spec.size;
        run.iterations = spec.messages;
        run.warmup = 10;
        run.silence_limit = spec.silence_limit;
        perf::LatencyResult server;
        std::exception_ptr server_error;
        std::thread answer([&] {
            try {
                server = perf::run_latency(b, perf::Role::server, run, clock);
            } catch (...) {
                server_error = std::current_exception();
            }
        });
        const perf::LatencyResult client = perf::run_latency(a, perf::Role::client, run, clock);
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

}  // namespace qps::ops
