#include "src/ops/holder_protocol.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/error.hpp"
#include "src/net/deadline_io.hpp"
#include "src/util/json_text.hpp"

namespace qps::ops {

namespace {

void write_all(int fd, std::string_view bytes, net::IoClock::time_point deadline)
{
    const net::Transfer t = net::send_until(fd, bytes, deadline, "holder", "sending to the holder");
    if (t.end == net::IoEnd::timed_out)
        throw TimeoutError("holder connection: timed out sending");
    if (t.end != net::IoEnd::done)
        throw SystemError("send to holder", t.err);
}

void read_all(int fd, char* data, std::size_t size, net::IoClock::time_point deadline)
{
    const net::Transfer t = net::receive_until(fd, data, size, deadline, "holder", "waiting for the holder");
    if (t.end == net::IoEnd::timed_out)
        throw TimeoutError("holder connection: timed out receiving");
    if (t.end == net::IoEnd::closed)
        throw OperationError("holder connection closed in the middle of a message");
    if (t.end == net::IoEnd::reset)
        throw SystemError("recv from holder", t.err);
}

}  // namespace

void send_message(int fd, const Json& message, std::chrono::milliseconds timeout)
{
    const std::string body = util::json_text(message);
    if (body.size() > max_message_bytes)
        throw OperationError(fmt::format("holder message of {} bytes exceeds the limit of {}", body.size(),
                                         max_message_bytes));
    const auto deadline = net::IoClock::now() + timeout;
    const std::uint32_t len = htonl(static_cast<std::uint32_t>(body.size()));
    write_all(fd, {reinterpret_cast<const char*>(&len), sizeof len}, deadline);
    write_all(fd, body, deadline);
}

Json receive_message(int fd, std::chrono::milliseconds timeout)
{
    const auto deadline = net::IoClock::now() + timeout;
    std::uint32_t len = 0;
    read_all(fd, reinterpret_cast<char*>(&len), sizeof len, deadline);
    len = ntohl(len);
    if (len == 0 || len > max_message_bytes)
        throw OperationError(fmt::format("holder message length {} is outside 1..{}", len, max_message_bytes));
    std::string body(len, '\0');
    read_all(fd, body.data(), len, deadline);
    Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
        throw OperationError("holder message is not a JSON object");
    return j;
}

void send_acknowledgement(int fd)
{
    write_all(fd, {&create_acknowledged, 1}, net::IoClock::now() + io_timeout);
}

bool receive_acknowledgement(int fd)
{
    char byte = 0;
    const net::Transfer t = net::receive_until(fd, &byte, 1, net::IoClock::now() + io_timeout, "holder client",
                                               "waiting for the client's acknowledgement");
    return t.end == net::IoEnd::done && byte == create_acknowledged;
}

std::string holder_dir()
{
    if (const char* d = std::getenv("QPSCOPE_HOLDER_DIR"); d && *d)
        return d;
    if (const char* r = std::getenv("XDG_RUNTIME_DIR"); r && *r)
        return fmt::format("{}/qpscope", r);
    return fmt::format("/tmp/qpscope-{}", ::getuid());
}

void ensure_private_dir(const std::string& dir)
{
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw SystemError(fmt::format("mkdir {}", dir), errno);
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        throw SystemError(fmt::format("stat {}", dir), errno);
    if (!S_ISDIR(st.st_mode))
        throw UsageError(fmt::format("holder directory {} is not a directory; remove it or set QPSCOPE_HOLDER_DIR",
                                     dir));
    if (st.st_uid != ::getuid())
        throw UsageError(fmt::format("holder directory {} belongs to uid {}, not to you (uid {}): only its owner "
                                     "can reach that holder",
                                     dir, st.st_uid, ::getuid()));
    if ((st.st_mode & 077) != 0)
        throw UsageError(fmt::format("holder directory {} has mode {:o}: others could reach the holder; "
                                     "chmod 700 it",
                                     dir, st.st_mode & 0777));
}

std::string socket_path(const std::string& dir) { return dir + "/holder.sock"; }

}  // namespace qps::ops
