#include "mpi/link.hpp"

#include <mpi.h>
#include <time.h>

#include "src/net/interrupt.hpp"

namespace qps::mpi {

int tag(std::uint32_t round, Channel channel)
{
    // MPI guarantees tags up to 32767; rounds beyond wrap, far apart in time.
    return static_cast<int>((round % 10000) * 3 + static_cast<std::uint32_t>(channel));
}

bool send_to(int rank, int tag, const std::string& message, ops::Deadline deadline)
{
    // Small messages go eagerly: the send completes once the data is handed
    // over. An error (the peer's connection died) is left for the receive
    // side's deadline to report; a send still pending at the deadline is
    // abandoned with its buffer (the rank leaves or goes on without it).
    auto* buffer = new std::string(message);
    MPI_Request request;
    if (MPI_Isend(buffer->data(), static_cast<int>(buffer->size()), MPI_CHAR, rank, tag, MPI_COMM_WORLD, &request) !=
        MPI_SUCCESS) {
        delete buffer;
        return false;
    }
    const timespec pause{0, 100'000};
    for (;;) {
        int done = 0;
        if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return false;  // the request may still hold the buffer: left
        if (done) {
            delete buffer;
            return true;
        }
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        ::nanosleep(&pause, nullptr);
    }
}

std::optional<std::string> receive_from(int rank, int tag, ops::Deadline deadline)
{
    const timespec pause{0, 100'000};  // 0.1 ms: waits cost the tests no CPU
    for (;;) {
        int flag = 0;
        MPI_Status status;
        if (MPI_Iprobe(rank, tag, MPI_COMM_WORLD, &flag, &status) == MPI_SUCCESS && flag) {
            int count = 0;
            MPI_Get_count(&status, MPI_CHAR, &count);
            std::string message(static_cast<std::size_t>(count), '\0');
            if (MPI_Recv(message.data(), count, MPI_CHAR, rank, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return std::nullopt;
            return message;
        }
        if (net::interrupt_pending() || std::chrono::steady_clock::now() >= deadline)
            return std::nullopt;
        ::nanosleep(&pause, nullptr);
    }
}

}  // namespace qps::mpi
