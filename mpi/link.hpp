// The few small messages of a mesh run over MPI point-to-point: bounded
// waits only (MPI_Iprobe polled with short sleeps until a deadline or an
// interrupt), so a rank that died never hangs the others. Errors return
// (MPI_ERRORS_RETURN) instead of aborting the job.
#pragma once

#include <optional>
#include <string>

#include "src/ops/mesh_pair.hpp"

namespace qps::mpi {

// Tags: one per round and purpose, so a late message of one round never
// matches a wait of another.
enum class Channel { pair = 0, result = 1, control = 2 };
int tag(std::uint32_t round, Channel channel);

// Sends without blocking past `deadline` (a peer that died may never take
// the message): false if the send failed or was still pending then (the
// message is then left to MPI, never freed under it).
bool send_to(int rank, int tag, const std::string& message, ops::Deadline deadline);
// The next message from `rank` with `tag`, or nullopt at the deadline or on an interrupt.
std::optional<std::string> receive_from(int rank, int tag, ops::Deadline deadline);

class Link final : public ops::PairLink {
public:
    Link(int partner, int tag, ops::Deadline deadline) : partner_(partner), tag_(tag), deadline_(deadline) {}
    void send(const std::string& message) override { send_to(partner_, tag_, message, deadline_); }
    std::optional<std::string> receive(ops::Deadline deadline) override { return receive_from(partner_, tag_, deadline); }

private:
    int partner_, tag_;
    ops::Deadline deadline_;
};

}  // namespace qps::mpi
