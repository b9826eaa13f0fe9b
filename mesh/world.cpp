#include "mesh/world.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mpi.h>
#include <unistd.h>

#include "src/util/json_text.hpp"

namespace qps::mesh::mpi {

namespace {

// What any rank gives MPI_Finalize before it leaves without it.
constexpr std::chrono::seconds finalize_grace{5};
constexpr std::size_t rank_record_bytes = 4096;

volatile std::sig_atomic_t finalize_code = 0;

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

std::vector<RankInfo> gather_ranks(const RankInfo& mine, int n)
{
    std::string record = util::json_text(to_json(mine));
    record.resize(rank_record_bytes, '\0');
    std::string all(rank_record_bytes * static_cast<std::size_t>(n), '\0');
    MPI_Allgather(record.data(), static_cast<int>(rank_record_bytes), MPI_CHAR, all.data(),
                  static_cast<int>(rank_record_bytes), MPI_CHAR, MPI_COMM_WORLD);
    std::vector<RankInfo> ranks;
    for (int i = 0; i < n; ++i) {
        const char* start = all.data() + rank_record_bytes * static_cast<std::size_t>(i);
        ranks.push_back(rank_info_from_json(Json::parse(std::string(start, ::strnlen(start, rank_record_bytes)))));
    }
    return ranks;
}

std::string broadcast(const std::string& text)
{
    int size = static_cast<int>(text.size());
    MPI_Bcast(&size, 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string out = text;
    out.resize(static_cast<std::size_t>(size));
    MPI_Bcast(out.data(), size, MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
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

}  // namespace qps::mesh::mpi
