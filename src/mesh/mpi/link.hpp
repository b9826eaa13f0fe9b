// The few small messages of a mesh run over MPI point-to-point: bounded
// waits only (MPI_Iprobe polled with short sleeps until a deadline or an
// interrupt), so a rank that died never hangs the others. Errors return
// (MPI_ERRORS_RETURN) instead of aborting the job.
#pragma once

#include <optional>
#include <string>

#include "src/mesh/pair_test.hpp"

namespace qps::mesh::mpi {

// Tags: one per round and purpose, so a late message of one round never
// matches a wait of another.
enum class Channel { pair = 0, result = 1, control = 2 };
int tag(std::uint32_t round, Channel channel);

void send_to(int rank, int tag, const std::string& message);
// The next message from `rank` with `tag`, or nullopt at the deadline or on an interrupt.
std::optional<std::string> receive_from(int rank, int tag, Deadline deadline);

class Link final : public PairLink {
public:
    Link(int partner, int tag) : partner_(partner), tag_(tag) {}
    void send(const std::string& message) override { send_to(partner_, tag_, message); }
    std::optional<std::string> receive(Deadline deadline) override { return receive_from(partner_, tag_, deadline); }

private:
    int partner_, tag_;
};

}  // namespace qps::mesh::mpi
