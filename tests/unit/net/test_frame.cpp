// The exchange's frame: magic + 4-byte big-endian length + a strict JSON
// object, decoded by the pure functions the Channel uses.
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "src/error.hpp"
#include "src/net/frame.hpp"
#include "tests/unit/net/net_test_util.hpp"

using namespace qps::net;
using namespace qps::net::test;
using qps::Json;
using qps::OperationError;

namespace {

std::string header_error(const std::string& bytes)
{
    REQUIRE(bytes.size() == frame_header_bytes);
    return thrown<OperationError>([&] {
        decode_frame_header(std::span<const std::uint8_t, frame_header_bytes>(
            reinterpret_cast<const std::uint8_t*>(bytes.data()), frame_header_bytes));
    });
}

std::string body_error(const std::string& body)
{
    return thrown<OperationError>([&] { decode_frame_body(body); });
}

bool ascii_printable(const std::string& s)
{
    for (unsigned char c : s)
        if (c < 0x20 || c >= 0x7f)
            return false;
    return true;
}

}  // namespace

TEST_CASE("a frame is QPSX, a big-endian length and the JSON body, and decodes back")
{
    const Json m{{"type", "ready"}};
    const std::string f = encode_frame(m);
    CHECK(f == std::string("QPSX\0\0\0\x10", 8) + R"({"type":"ready"})");
    CHECK(decode_frame(f) == m);
    const Json nested{{"type", "results"}, {"results", {{"p50_us", 1.5}, {"name", "größe"}, {"list", {1, 2, 3}}}}};
    CHECK(decode_frame(encode_frame(nested)) == nested);
}

TEST_CASE("frame bounds: a body of max_frame_bytes passes, one byte more does not")
{
    const std::string filler_key = "pad";
    Json m{{"type", "x"}, {filler_key, ""}};
    const std::size_t overhead = m.dump().size();
    m[filler_key] = std::string(max_frame_bytes - overhead, 'a');
    const std::string f = encode_frame(m);
    CHECK(f.size() == frame_header_bytes + max_frame_bytes);
    CHECK(decode_frame(f) == m);
    m[filler_key] = std::string(max_frame_bytes - overhead + 1, 'a');
    CHECK(contains(thrown<OperationError>([&] { encode_frame(m); }),
                   "exchange message \"x\" of 65537 bytes exceeds the limit of 65536 bytes"));
}

TEST_CASE("garbage instead of a header is named with its first bytes")
{
    const std::string e = header_error("GET / HT");
    CHECK(e == "received bytes that are not a qpscope exchange frame (\"GET / HT\"): is a program other than "
               "qpscope on the other end?");
    CHECK(contains(header_error(std::string("\x00\x01\xff\nQPSX", 8)), "(\"\\x00\\x01\\xff\\nQPSX\")"));
    // perftest's text exchange, as it would arrive on our port
    CHECK(contains(header_error("0000:000"), "not a qpscope exchange frame (\"0000:000\")"));
}

TEST_CASE("a length outside 2..65536 is refused before anything is read")
{
    CHECK(header_error("QPSX" + be32(0)) == "message length 0 is outside 2..65536 bytes");
    CHECK(header_error("QPSX" + be32(1)) == "message length 1 is outside 2..65536 bytes");
    CHECK(header_error("QPSX" + be32(65537)) == "message length 65537 is outside 2..65536 bytes");
    CHECK(header_error("QPSX" + be32(0xffffffff)) == "message length 4294967295 is outside 2..65536 bytes");
    CHECK(header_error("QPSX" + be32(65536)) == "<nothing thrown>");
    CHECK(header_error("QPSX" + be32(2)) == "<nothing thrown>");
}

TEST_CASE("the body must be one strict JSON object with a string type")
{
    CHECK(contains(body_error("{\"type\":"), "message is not valid JSON: "));
    CHECK(contains(body_error(R"({"type":"ready"} trailing)"), "message is not valid JSON: "));
    CHECK(contains(body_error(R"({"type":"ready"}{"type":"ready"})"), "message is not valid JSON: "));
    CHECK(body_error(R"(["type","ready"])") == R"(message is not a JSON object but ["type","ready"])");
    CHECK(body_error("42") == "message is not a JSON object but 42");
    CHECK(body_error(R"({"kind":"ready"})") == R"(message has no "type" member: {"kind":"ready"})");
    CHECK(body_error(R"({"type":7})") == R"(message member "type" is 7, must be a non-empty string)");
    CHECK(body_error(R"({"type":""})") == R"(message member "type" is "", must be a non-empty string)");
    CHECK(body_error(R"({"type":"ready"})") == "<nothing thrown>");
}

TEST_CASE("duplicate member names are refused at every level")
{
    CHECK(body_error(R"({"type":"a","type":"b"})") == R"(message has member "type" twice)");
    CHECK(body_error(R"({"type":"r","results":{"x":1,"x":2}})") == R"(message has member "x" twice)");
    // the same name in sibling objects is fine
    CHECK(body_error(R"({"type":"r","a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":1}]})") == "<nothing thrown>");
}

TEST_CASE("nesting is bounded")
{
    auto nested = [](int levels) {
        std::string s = R"({"type":"r","v":)";
        for (int i = 1; i < levels; ++i)
            s += "[";
        for (int i = 1; i < levels; ++i)
            s += "]";
        return s + "}";
    };
    CHECK(body_error(nested(max_json_depth)) == "<nothing thrown>");
    CHECK(body_error(nested(max_json_depth + 1)) == "message nests objects and arrays deeper than 8 levels");
    CHECK(body_error(nested(10000)) == "message nests objects and arrays deeper than 8 levels");
}

TEST_CASE("bytes from the peer never reach an error message raw")
{
    const std::string e = body_error("{\"type\":\"\xff\xfe\"}");
    CHECK(contains(e, "message is not valid JSON"));
    CHECK(ascii_printable(e));
    CHECK(ascii_printable(body_error("\x01\x02\x7f\x80")));
    // The one rule for outside bytes (src/util/outside_bytes.hpp): valid
    // UTF-8 kept, controls and ill-formed bytes escaped, a backslash kept.
    CHECK(printable("a\tb\r\n\\\x01\xe2\x80\x94\xff") == "a\\tb\\r\\n\\\\x01\xe2\x80\x94\\xff");
    CHECK(printable("\xe2\x80\x94", 2) == "\\xe2\\x80...");
    CHECK(printable(std::string(100, 'x'), 4) == "xxxx...");
    CHECK(quote(Json("größe")) == R"("gr\u00f6\u00dfe")");
}

TEST_CASE("decode_frame wants exactly one frame")
{
    CHECK(thrown<OperationError>([] { decode_frame("QPSX"); }) == "frame of 4 bytes is shorter than its 8-byte header");
    CHECK(thrown<OperationError>([] { decode_frame(frame_of(R"({"type":"ready"})") + "x"); }) ==
          "frame announces 16 body bytes but carries 17");
    CHECK(thrown<OperationError>([] { decode_frame(frame_of(R"({"type":"ready"})").substr(0, 20)); }) ==
          "frame announces 16 body bytes but carries 12");
}

// The fuzz harness itself (tests/fuzz/fuzz_oob_parser.cpp) replayed over its
// seed corpus: every build runs it, g++ or ASan, with or without clang.
#include "tests/fuzz/fuzz_oob_parser.cpp"

TEST_CASE("the fuzz harness passes its whole seed corpus")
{
    const auto corpus = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "fuzz" / "corpus";
    REQUIRE(std::filesystem::is_directory(corpus));
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
        std::ifstream in(entry.path(), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CAPTURE(entry.path().filename().string());
        CHECK(LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == 0);
        ++files;
    }
    CHECK(files > 50);
}
