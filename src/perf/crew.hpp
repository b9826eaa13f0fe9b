// The threads of one side's run: N worker threads (--threads N; a run of
// one thread, bw's or ping-pong's, runs on the calling thread instead and
// its loop looks at the peer itself: src/perf/bw/worker.cpp,
// src/ops/ping_pong.cpp), each pinned to its CPU, and the calling thread
// as their coordinator. The coordinator watches the peer through the out-of-band
// socket (net::PeerWatch: it sends this side's heartbeats and takes the
// peer's). When the peer is done, gone or silent it raises the crew's end
// signal, an eventfd that stays readable, which the workers' loops watch
// in place of the socket. A worker may raise it too (to end its
// siblings). Exceptions thrown by a worker are rethrown here after every
// worker has ended.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/net/heartbeat.hpp"

namespace qps::perf {

class CrewEnd {
public:
    CrewEnd();
    ~CrewEnd();
    CrewEnd(const CrewEnd&) = delete;
    CrewEnd& operator=(const CrewEnd&) = delete;

    int fd() const { return fd_; }  // readable once raised
    void raise() const;

private:
    int fd_;
};

// Runs work(i, end) on one thread per entry of `cpus` (-1: not pinned),
// and returns when all have ended. `every_second` (may be empty) is called
// on the calling thread about once a second meanwhile. A worker whose pin
// fails or that throws raises the end signal. Returns "" or, when the
// peer stopped answering (no heartbeat within the silence limit), why:
// the workers were ended then, and the run is to be reported as cut short.
std::string run_crew_threads(const std::vector<int>& cpus, net::PeerWatch& peer,
                             const std::function<void(std::uint32_t, const CrewEnd&)>& work,
                             const std::function<void()>& every_second = {});

}  // namespace qps::perf
