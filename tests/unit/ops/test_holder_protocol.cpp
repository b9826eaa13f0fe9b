// The holder's framing (4-byte big-endian length + JSON object) over a
// socketpair, its bounds and deadlines, and the private socket directory.
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <future>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "src/error.hpp"
#include "src/ops/holder_protocol.hpp"
#include "unit/util.hpp"

using namespace qps::ops;
using qps::Json;
using namespace std::chrono_literals;
using qps::OperationError;
using qps::SystemError;
using qps::TimeoutError;
using qps::UsageError;

using qps::test::contains;
using qps::test::hang_guard;
using qps::test::ThreadTime;
using qps::test::thrown;
namespace {

// Both ends of an AF_UNIX stream socketpair, closed on scope exit.
struct Pair {
    int a = -1, b = -1;
    Pair()
    {
        int fds[2];
        REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
        a = fds[0];
        b = fds[1];
    }
    ~Pair()
    {
        close_a();
        close_b();
    }
    void close_a()
    {
        if (a >= 0)
            ::close(a);
        a = -1;
    }
    void close_b()
    {
        if (b >= 0)
            ::close(b);
        b = -1;
    }
    Pair(const Pair&) = delete;
    Pair& operator=(const Pair&) = delete;
};

void write_raw(int fd, const std::string& bytes)
{
    REQUIRE(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
}

std::string be32(std::uint32_t v)
{
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
}

// A frame with a correct length prefix around `body`.
std::string frame(const std::string& body) { return be32(static_cast<std::uint32_t>(body.size())) + body; }

bool readable_now(int fd)
{
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 1;
}

// Sets (or, with nullopt, unsets) an environment variable; restores the
// original value on scope exit.
class EnvGuard {
public:
    explicit EnvGuard(const char* name) : name_(name)
    {
        if (const char* v = std::getenv(name))
            saved_ = std::string(v);
    }
    ~EnvGuard()
    {
        if (saved_)
            ::setenv(name_, saved_->c_str(), 1);
        else
            ::unsetenv(name_);
    }
    void set(const char* value) const { ::setenv(name_, value, 1); }
    void unset() const { ::unsetenv(name_); }
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;

private:
    const char* name_;
    std::optional<std::string> saved_;
};

// A fresh temporary directory, removed with its contents on scope exit.
struct TempDir {
    std::string path;
    TempDir()
    {
        char tmpl[] = "/tmp/qpscope-unit-XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        path = tmpl;
    }
    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

unsigned mode_of(const std::string& path)
{
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

}  // namespace

// ------------------------------------------------------------------ framing

TEST_CASE("holder protocol: a message goes through unchanged, framed as big-endian length + JSON")
{
    Pair p;
    const Json sent = Json::parse(R"({"op":"query","qpn":26,"nested":{"list":[1,2,3],"flag":true},"text":"µs"})");
    send_message(p.a, sent);
    const Json got = receive_message(p.b, 1000ms);
    CHECK(got == sent);
    CHECK(got.at("qpn") == 26);
    CHECK(got.at("text") == "µs");
    // Member order survives (ordered_json).
    CHECK(got.begin().key() == "op");

    // On the wire: exactly 00 00 00 07 {"a":1}
    send_message(p.a, Json{{"a", 1}});
    char buf[64] = {};
    const ssize_t n = ::recv(p.b, buf, sizeof buf, 0);
    REQUIRE(n == 11);
    CHECK(std::string(buf, 11) == std::string("\x00\x00\x00\x07{\"a\":1}", 11));
}

TEST_CASE("holder protocol: two messages on one stream arrive in order, each whole")
{
    Pair p;
    send_message(p.a, Json{{"n", 1}});
    send_message(p.a, Json{{"n", 2}, {"s", "second"}});
    CHECK(receive_message(p.b, 1000ms) == Json{{"n", 1}});
    CHECK(receive_message(p.b, 1000ms) == Json{{"n", 2}, {"s", "second"}});
    CHECK_FALSE(readable_now(p.b));
}

TEST_CASE("holder protocol: an empty object and a message close to the limit go through")
{
    Pair p;
    send_message(p.a, Json::object());
    CHECK(receive_message(p.b, 1000ms) == Json::object());

    // {"big":"xxx..."} of max_message_bytes exactly; larger than the socket
    // buffer, so the sender runs on its own thread.
    const std::string big(max_message_bytes - 10, 'x');
    const Json sent{{"big", big}};
    REQUIRE(sent.dump().size() == max_message_bytes);
    std::thread sender([&] { send_message(p.a, sent, hang_guard); });
    Json got;
    CHECK_NOTHROW(got = receive_message(p.b, hang_guard));
    sender.join();
    CHECK(got.at("big").get<std::string>().size() == max_message_bytes - 10);
}

TEST_CASE("holder protocol: send_message refuses a message over the limit and writes nothing")
{
    Pair p;
    const Json too_big{{"big", std::string(max_message_bytes, 'x')}};
    const std::string msg = thrown<OperationError>([&] { send_message(p.a, too_big, 1000ms); });
    CHECK(contains(msg, "exceeds the limit of 1048576"));
    CHECK_FALSE(readable_now(p.b));
}

TEST_CASE("holder protocol: a length prefix over max_message_bytes is an error, read no further")
{
    for (std::uint32_t len : {std::uint32_t(max_message_bytes + 1), 0x7fffffffu, 0xffffffffu}) {
        CAPTURE(len);
        Pair p;
        write_raw(p.a, be32(len) + "{}");
        const std::string msg = thrown<OperationError>([&] { receive_message(p.b, 1000ms); });
        CHECK(contains(msg, "length " + std::to_string(len)));
        CHECK(contains(msg, "outside 1..1048576"));
    }
}

TEST_CASE("holder protocol: a zero length is an error")
{
    Pair p;
    write_raw(p.a, be32(0));
    CHECK(contains(thrown<OperationError>([&] { receive_message(p.b, 1000ms); }), "length 0 is outside"));
}

TEST_CASE("holder protocol: a truncated message followed by close is an error, not a hang")
{
    SUBCASE("body cut short")
    {
        Pair p;
        write_raw(p.a, be32(100) + R"({"op":"q)");
        p.close_a();
        CHECK(contains(thrown<OperationError>([&] { receive_message(p.b, 2000ms); }),
                       "closed in the middle of a message"));
    }
    SUBCASE("length prefix cut short")
    {
        Pair p;
        write_raw(p.a, std::string("\x00\x00", 2));
        p.close_a();
        CHECK(contains(thrown<OperationError>([&] { receive_message(p.b, 2000ms); }), "closed"));
    }
    SUBCASE("nothing at all")
    {
        Pair p;
        p.close_a();
        CHECK(contains(thrown<OperationError>([&] { receive_message(p.b, 2000ms); }), "closed"));
    }
}

TEST_CASE("holder protocol: a body that is not a JSON object is an OperationError")
{
    const char* bodies[] = {
        "{not json",  "{\"a\":1} trailing", "{\"a\":}", "}",   "[1,2]",  "42",         "\"text\"", "null",
        "true",       "[]",                 " ",        "{\"a\":1}{\"b\":2}", "\xff\xfe{}", "{\"a\":\"\xc3\"}",
    };
    for (const char* body : bodies) {
        CAPTURE(body);
        Pair p;
        write_raw(p.a, frame(body));
        CHECK(thrown<OperationError>([&] { receive_message(p.b, 1000ms); }) ==
              "holder message is not a JSON object");
    }
}

TEST_CASE("holder protocol: a deeply nested (but bounded) message does not crash the reader")
{
    Pair p;
    const std::size_t depth = 200000;
    const std::string body = "{\"a\":" + std::string(depth, '[') + std::string(depth, ']') + "}";
    REQUIRE(body.size() < max_message_bytes);
    std::thread sender([&] { write_raw(p.a, frame(body)); });
    Json got;
    CHECK_NOTHROW(got = receive_message(p.b, hang_guard));
    sender.join();
    CHECK(got.is_object());
    CHECK(got.at("a").is_array());
}

TEST_CASE("holder protocol: a receive with nothing sent times out within the timeout")
{
    Pair p;
    const auto start = std::chrono::steady_clock::now();
    const ThreadTime t;
    const std::string msg = thrown<TimeoutError>([&] { receive_message(p.b, 100ms); });
    const long blocked = t.blocked_ms();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    CHECK(msg == "holder connection: timed out receiving");
    CHECK(elapsed >= 100ms);
    CHECK(blocked <= 2 * 100);  // gave up at the deadline: asleep no longer than twice that
}

TEST_CASE("holder protocol: a length with a body that never comes times out too")
{
    Pair p;
    write_raw(p.a, be32(50) + "{\"a\"");
    const auto start = std::chrono::steady_clock::now();
    const ThreadTime t;
    CHECK(thrown<TimeoutError>([&] { receive_message(p.b, 100ms); }) == "holder connection: timed out receiving");
    CHECK(t.blocked_ms() <= 2 * 100);
    CHECK(std::chrono::steady_clock::now() - start >= 100ms);
}

// send_message writes on a blocking socket: once poll() reports some room,
// ::send() of the whole remaining body blocks in the kernel until the peer has
// read all of it, so the deadline is never looked at again. The sender runs
// on a thread; the test reads nothing until it has given up, or until the
// hang guard (then it drains the peer to unblock it, so the test itself
// never hangs). The sender measures how long it was blocked.
TEST_CASE("holder protocol: a send to a peer that does not read times out")
{
    Pair p;
    const int small = 4096;
    REQUIRE(::setsockopt(p.a, SOL_SOCKET, SO_SNDBUF, &small, sizeof small) == 0);
    const Json big{{"big", std::string(max_message_bytes - 10, 'x')}};
    std::promise<std::pair<std::string, long>> result;
    std::future<std::pair<std::string, long>> outcome = result.get_future();
    std::thread sender([&] {
        const ThreadTime t;
        std::string e = thrown<TimeoutError>([&] { send_message(p.a, big, 100ms); });
        result.set_value({std::move(e), t.blocked_ms()});
    });
    // Without the peer reading a byte: the sender does not wait for it.
    const bool gave_up_unread = outcome.wait_for(hang_guard) == std::future_status::ready;
    while (outcome.wait_for(0s) != std::future_status::ready) {  // unblock a stuck sender
        pollfd pf{p.b, POLLIN, 0};
        if (::poll(&pf, 1, 50) == 1) {
            char buf[65536];
            (void)::recv(p.b, buf, sizeof buf, 0);
        }
    }
    sender.join();
    CHECK(gave_up_unread);
    const auto [message, blocked] = outcome.get();
    CHECK(message == "holder connection: timed out sending");
    CHECK(blocked <= 2 * 100);  // at its deadline: asleep no longer than twice that
}

TEST_CASE("holder protocol: a send to a closed peer is a SystemError, not a SIGPIPE")
{
    Pair p;
    p.close_b();
    const std::string msg = thrown<SystemError>([&] { send_message(p.a, Json{{"a", 1}}, 1000ms); });
    CHECK(contains(msg, "send to holder failed"));
    CHECK(contains(msg, "EPIPE"));
}

// ------------------------------------------------------------------ directory

TEST_CASE("ensure_private_dir: creates a missing directory with mode 0700, and accepts it again")
{
    TempDir t;
    const std::string dir = t.path + "/holder";
    ensure_private_dir(dir);
    struct stat st {};
    REQUIRE(::lstat(dir.c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK(mode_of(dir) == 0700u);
    CHECK(st.st_uid == ::getuid());
    CHECK_NOTHROW(ensure_private_dir(dir));
    CHECK(mode_of(dir) == 0700u);
}

TEST_CASE("ensure_private_dir: a directory others can reach is refused, naming its mode")
{
    TempDir t;
    struct Case {
        unsigned mode;
        const char* shown;
    };
    for (const Case c : {Case{0755, "mode 755"}, Case{0750, "mode 750"}, Case{0701, "mode 701"},
                         Case{0777, "mode 777"}, Case{0710, "mode 710"}}) {
        CAPTURE(c.shown);
        const std::string dir = t.path + "/d" + std::to_string(c.mode);
        REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
        REQUIRE(::chmod(dir.c_str(), c.mode) == 0);
        const std::string msg = thrown<UsageError>([&] { ensure_private_dir(dir); });
        CHECK(contains(msg, dir));
        CHECK(contains(msg, c.shown));
        CHECK(contains(msg, "chmod 700"));
    }
}

TEST_CASE("ensure_private_dir: a regular file or a symlink is not a directory")
{
    TempDir t;
    const std::string file = t.path + "/file";
    {
        FILE* f = std::fopen(file.c_str(), "w");
        REQUIRE(f != nullptr);
        std::fclose(f);
    }
    std::string msg = thrown<UsageError>([&] { ensure_private_dir(file); });
    CHECK(contains(msg, file));
    CHECK(contains(msg, "is not a directory"));

    // A symlink to a private directory is refused too (someone else could
    // re-point it).
    const std::string real = t.path + "/real";
    REQUIRE(::mkdir(real.c_str(), 0700) == 0);
    const std::string link = t.path + "/link";
    REQUIRE(::symlink(real.c_str(), link.c_str()) == 0);
    msg = thrown<UsageError>([&] { ensure_private_dir(link); });
    CHECK(contains(msg, "is not a directory"));
}

TEST_CASE("ensure_private_dir: a missing parent is a SystemError naming mkdir and the path")
{
    TempDir t;
    const std::string dir = t.path + "/no/such/parent";
    const std::string msg = thrown<SystemError>([&] { ensure_private_dir(dir); });
    CHECK(contains(msg, "mkdir " + dir));
    CHECK(contains(msg, "ENOENT"));
}

TEST_CASE("ensure_private_dir: a directory of another user is refused (needs root to set up)")
{
    if (::getuid() != 0)
        return;  // cannot make a directory owned by someone else
    TempDir t;
    const std::string dir = t.path + "/other";
    REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
    REQUIRE(::chown(dir.c_str(), 12345, 12345) == 0);
    const std::string msg = thrown<UsageError>([&] { ensure_private_dir(dir); });
    CHECK(contains(msg, "belongs to uid 12345"));
}

TEST_CASE("holder_dir: QPSCOPE_HOLDER_DIR, then XDG_RUNTIME_DIR/qpscope, then /tmp/qpscope-UID")
{
    EnvGuard holder("QPSCOPE_HOLDER_DIR");
    EnvGuard xdg("XDG_RUNTIME_DIR");

    holder.set("/custom/holder");
    xdg.set("/run/user/1000");
    CHECK(holder_dir() == "/custom/holder");

    holder.set("");  // empty counts as unset
    CHECK(holder_dir() == "/run/user/1000/qpscope");

    holder.unset();
    CHECK(holder_dir() == "/run/user/1000/qpscope");

    xdg.set("");
    CHECK(holder_dir() == "/tmp/qpscope-" + std::to_string(::getuid()));

    xdg.unset();
    CHECK(holder_dir() == "/tmp/qpscope-" + std::to_string(::getuid()));

    CHECK(socket_path("/run/user/1000/qpscope") == "/run/user/1000/qpscope/holder.sock");
}
