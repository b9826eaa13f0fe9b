#include "mpi/world.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mpi.h>
#include <unistd.h>

#include <fmt/format.h>

#include "src/net/interrupt.hpp"
#include "src/util/json_text.hpp"

namespace qps::mpi {

namespace {

// What any rank gives MPI_Finalize before it leaves without it.
constexpr std::chrono::seconds finalize_grace{5};
constexpr std::size_t rank_record_bytes = 4096;

volatile std::sig_atomic_t finalize_code = 0;

// Waits for a non-blocking collective of the start: see world.hpp.
void complete(MPI_Request& request, StartLimit limit, const char* what)
{
    const auto deadline = std::chrono::steady_clock::now() + limit;
    const timespec pause{0, 1'000'000};  // 1 ms: the start's waits cost the other ranks no CPU
    for (;;) {
        int done = 0;
        if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            std::cerr << fmt::format("qpscope-mesh: rank {}: start-up: MPI failed in {}\n", world_rank(), what);
            leave(exit_lost);
        }
        if (done)
            return;
        if (net::interrupt_pending()) {
            std::cerr << fmt::format("qpscope-mesh: rank {}: {} during start-up ({})\n", world_rank(),
                                     net::interrupt_reason(), what);
            leave(exit_interrupted);
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            std::cerr << fmt::format("qpscope-mesh: rank {}: start-up: not every rank took part in {} within {:g} s "
                                     "(--timeout): a rank died, hung or was stopped before its set-up ended\n",
                                     world_rank(), what, std::chrono::duration<double>(limit).count());
            leave(exit_lost);
        }
        ::nanosleep(&pause, nullptr);
    }
}

}  // namespace

int world_rank()
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int world_size()
{
    int n = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

int node_local_rank()
{
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return 0;
    int r = 0;
    MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    return r;
}

std::vector<mesh::RankInfo> gather_ranks(const mesh::RankInfo& mine, int n, StartLimit limit)
{
    std::string record = util::json_text(mesh::to_json(mine));
    record.resize(rank_record_bytes, '\0');
    std::string all(rank_record_bytes * static_cast<std::size_t>(n), '\0');
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallgather(record.data(), static_cast<int>(rank_record_bytes), MPI_CHAR, all.data(),
                   static_cast<int>(rank_record_bytes), MPI_CHAR, MPI_COMM_WORLD, &request);
    complete(request, limit, "the exchange of the ranks' set-up records");
    std::vector<mesh::RankInfo> ranks;
    for (int i = 0; i < n; ++i) {
        const char* start = all.data() + rank_record_bytes * static_cast<std::size_t>(i);
        ranks.push_back(mesh::rank_info_from_json(Json::parse(std::string(start, ::strnlen(start, rank_record_bytes)))));
    }
    return ranks;
}

int broadcast_int(int value, StartLimit limit, const char* what)
{
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Ibcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
    complete(request, limit, what);
    return value;
}

std::string broadcast(const std::string& text, StartLimit limit)
{
    const int size = broadcast_int(static_cast<int>(text.size()), limit, "the broadcast of rank 0's plan");
    std::string out = text;
    out.resize(static_cast<std::size_t>(size));
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Ibcast(out.data(), size, MPI_CHAR, 0, MPI_COMM_WORLD, &request);
    complete(request, limit, "the broadcast of rank 0's plan");
    return out;
}

void barrier(StartLimit limit, const char* what)
{
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    complete(request, limit, what);
}

void leave(int code)
{
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(code);
}

int finalize(int code)
{
    std::cout.flush();
    std::cerr.flush();
    finalize_code = code;
    struct sigaction sa {};
    sa.sa_handler = [](int) { std::_Exit(finalize_code); };
    ::sigaction(SIGALRM, &sa, nullptr);
    ::alarm(static_cast<unsigned>(finalize_grace.count()));
    MPI_Finalize();
    ::alarm(0);
    return code;
}

}  // namespace qps::mpi
