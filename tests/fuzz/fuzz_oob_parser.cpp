// libFuzzer target: the out-of-band exchange's frame decoder and every
// message parser, fed the bytes a peer could send.
//
// The input is tried twice: as a whole frame (magic, length, body: what
// Channel::receive decodes, through the same functions) and as a bare body
// (so mutations reach the JSON parser without having to keep the header's
// length right). Every accepted message goes through every parser. The only
// acceptable failure is qps::OperationError; anything else (another
// exception, a crash, a sanitizer report, a round trip that changes a value)
// is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "src/error.hpp"
#include "src/net/frame.hpp"
#include "src/net/messages.hpp"

using namespace qps::net;
using qps::Json;

namespace {

[[noreturn]] void fail(const char* what)
{
    std::fprintf(stderr, "fuzz_oob_parser: %s\n", what);
    std::abort();
}

template <class F>
void expect_clean(F&& f)
{
    try {
        f();
    } catch (const qps::OperationError& e) {
        // A clean error must be one printable line.
        for (const char c : std::string_view(e.what()))
            if (c == '\n' || c == '\r')
                fail("error message spans lines");
    }
}

void run_parsers(const Json& m)
{
    (void)message_type(m);
    (void)quote(m);
    expect_clean([&] {
        const Hello h = parse_hello(m);
        if (!(parse_hello(decode_frame(encode_frame(to_message(h)))) == h))
            fail("hello does not round-trip");
    });
    expect_clean([&] {
        const Endpoint e = parse_endpoint(m);
        if (!(parse_endpoint(decode_frame(encode_frame(to_message(e)))) == e))
            fail("endpoint does not round-trip");
    });
    expect_clean([&] {
        const auto [p, timeout] = parse_params(m);
        const auto again = parse_params(decode_frame(encode_frame(params_message(p, timeout))));
        if (again.params != p || again.timeout != timeout)
            fail("params do not round-trip");
        std::vector<std::string> keys;
        for (const auto& [k, v] : p.items())
            keys.push_back(k);
        if (!compare_params(p, p, keys).empty())
            fail("params differ from themselves");
        (void)compare_params(p, Json::object(), keys);
    });
    expect_clean([&] { parse_ready(m); });
    expect_clean([&] {
        const Json r = parse_results(m);
        (void)decode_frame(encode_frame(results_message(r)));
    });
    expect_clean([&] {
        const std::string text = parse_error_message(m);
        (void)decode_frame(encode_frame(error_message(text)));
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    if (size >= frame_header_bytes)
        expect_clean([&] { (void)decode_frame_header(std::span<const std::uint8_t, frame_header_bytes>(data, frame_header_bytes)); });
    expect_clean([&] { run_parsers(decode_frame(bytes)); });
    expect_clean([&] { run_parsers(decode_frame_body(bytes)); });
    (void)printable(bytes);
    return 0;
}
