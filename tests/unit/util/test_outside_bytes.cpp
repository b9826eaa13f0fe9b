#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <string>

#include "src/util/outside_bytes.hpp"

using qps::util::escape_text;
using qps::util::hex_bytes;
using qps::util::is_utf8;
using qps::util::to_utf8;
using qps::util::utf8_step;

namespace {

const std::string fffd = "\xEF\xBF\xBD";

// What nlohmann's last safety net (dump with error_handler_t::replace)
// makes of the same bytes: it must agree with to_utf8.
std::string nlohmann_replaced(const std::string& bytes)
{
    const std::string dumped =
        nlohmann::json(bytes).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return nlohmann::json::parse(dumped).get<std::string>();
}

}  // namespace

TEST_CASE("outside bytes: valid UTF-8 is kept as is, in JSON and in text")
{
    for (const std::string s : {"", "qpscope-holder", "µs", "\xE2\x80\x94", "\xF0\x9F\x98\x80", "ü\xEF\xBF\xBD",
                                "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF", "\xEE\x80\x80"}) {
        CAPTURE(s);
        CHECK(is_utf8(s));
        CHECK(to_utf8(s) == s);
        CHECK(escape_text(s) == s);
    }
    CHECK(utf8_step("\xF0\x9F\x98\x80x").length == 4);
    CHECK(utf8_step("\xF0\x9F\x98\x80x").valid);
    CHECK(utf8_step("").length == 0);
}

TEST_CASE("outside bytes: a byte that is never UTF-8 becomes U+FFFD in JSON and \\xNN in text")
{
    CHECK_FALSE(is_utf8("ab\xFF"));
    CHECK(to_utf8("ab\xFF") == "ab" + fffd);
    CHECK(escape_text("ab\xFF") == "ab\\xff");
    CHECK(to_utf8("\xC0\xC1\xF5\xFE") == fffd + fffd + fffd + fffd);
    CHECK(escape_text("\x80z") == "\\x80z");  // a lone continuation byte
}

TEST_CASE("outside bytes: overlong encodings, surrogates and code points past U+10FFFF are ill-formed")
{
    // Overlong "/" (C0 AF), overlong U+0000 (E0 80 80), overlong U+FFFF (F0 8F BF BF).
    CHECK(to_utf8("\xC0\xAF") == fffd + fffd);
    CHECK(to_utf8("\xE0\x80\x80") == fffd + fffd + fffd);
    CHECK(to_utf8("\xF0\x8F\xBF\xBF") == fffd + fffd + fffd + fffd);
    CHECK(escape_text("\xC0\xAF") == "\\xc0\\xaf");
    // A surrogate (U+D800 as ED A0 80) is not a character.
    CHECK_FALSE(is_utf8("\xED\xA0\x80"));
    CHECK(to_utf8("\xED\xA0\x80") == fffd + fffd + fffd);
    CHECK(escape_text("\xED\xA0\x80") == "\\xed\\xa0\\x80");
    // U+110000 (F4 90 80 80).
    CHECK(to_utf8("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);
}

TEST_CASE("outside bytes: a truncated sequence is one U+FFFD (its maximal subpart), the next byte starts again")
{
    CHECK(utf8_step("\xE2\x80").length == 2);
    CHECK_FALSE(utf8_step("\xE2\x80").valid);
    CHECK(to_utf8("\xE2\x80") == fffd);
    CHECK(to_utf8("\xE2\x80x") == fffd + "x");
    CHECK(to_utf8("\xF0\x9F\x98") == fffd);
    CHECK(to_utf8("\xF0\x9F\x98\xE2\x80\x94") == fffd + "\xE2\x80\x94");
    CHECK(to_utf8("\xE2\xFF") == fffd + fffd);
    CHECK(escape_text("\xE2\x80x") == "\\xe2\\x80x");
    // The Unicode standard's own example (3.9, Table 3-8): 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
    CHECK(to_utf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64") ==
          "a" + fffd + fffd + fffd + "b" + fffd + "c" + fffd + fffd + "d");
}

TEST_CASE("outside bytes: control characters are escaped in text and kept in JSON")
{
    CHECK(escape_text("a\x1b[31mred") == "a\\e[31mred");
    CHECK(escape_text("\a\b\t\n\v\f\r") == "\\a\\b\\t\\n\\v\\f\\r");
    CHECK(escape_text(std::string("\0\x01\x1f", 3)) == "\\x00\\x01\\x1f");
    CHECK(escape_text("\x7f") == "\\x7f");  // DEL
    // C1 controls: U+0080, U+009B (CSI), U+009F as their two bytes; U+00A0 is not one.
    CHECK(escape_text("\xC2\x80") == "\\xc2\\x80");
    CHECK(escape_text("\xC2\x9B"
                      "2J") == "\\xc2\\x9b2J");
    CHECK(escape_text("\xC2\x9F") == "\\xc2\\x9f");
    CHECK(escape_text("\xC2\xA0") == "\xC2\xA0");
    // JSON escapes controls itself: the string stays.
    CHECK(to_utf8("a\x1b[31m\x7f\xC2\x9B") == "a\x1b[31m\x7f\xC2\x9B");
    // A backslash is kept, so escaping twice changes nothing.
    CHECK(escape_text("C:\\x") == "C:\\x");
    const std::string once = escape_text("\xFF\x1b\xC2\x9B\n");
    CHECK(escape_text(once) == once);
}

TEST_CASE("outside bytes: the text is printable and the JSON string valid, whatever the bytes")
{
    std::string all;
    for (int b = 0; b < 256; ++b)
        all += static_cast<char>(b);
    const std::string json = to_utf8(all);
    CHECK(is_utf8(json));
    const std::string text = escape_text(all);
    CHECK(is_utf8(text));
    CHECK(text.find_first_of(std::string("\x00\x1b\n\r\x7f", 5)) == std::string::npos);
    CHECK(text.find("\xC2\x9B") == std::string::npos);
}

TEST_CASE("outside bytes: nlohmann's replace handler, the last safety net, replaces as to_utf8 does")
{
    for (const std::string s : {"ab\xFF", "\xE2\x80x", "\xF0\x9F\x98", "\xED\xA0\x80", "\xC0\xAF",
                                "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", "\xF4\x90\x80\x80",
                                "\xE2\xFF", "ok"}) {
        CAPTURE(s);
        CHECK(nlohmann_replaced(s) == to_utf8(s));
    }
}

TEST_CASE("outside bytes: hex of the exact bytes")
{
    CHECK(hex_bytes("") == "");
    CHECK(hex_bytes("a\xFF\x1b") == "61ff1b");
}

TEST_CASE("outside bytes: a byte to escape is found wherever it is in a longer text (eight bytes at a time)")
{
    // Every position of a 21-byte text, in and after the 8-byte words and in the tail; the bytes at the edges of
    // printable ASCII (0x1F below, 0x7F above, 0x20 and 0x7E in it) and one with the top bit.
    for (std::size_t at = 0; at < 21; ++at) {
        CAPTURE(at);
        std::string s(21, 'a');
        s[at] = '\x1f';
        CHECK(escape_text(s) == std::string(at, 'a') + "\\x1f" + std::string(20 - at, 'a'));
        s[at] = '\x7f';
        CHECK(escape_text(s) == std::string(at, 'a') + "\\x7f" + std::string(20 - at, 'a'));
        s[at] = '\t';
        CHECK(escape_text(s) == std::string(at, 'a') + "\\t" + std::string(20 - at, 'a'));
        s[at] = ' ';
        CHECK(escape_text(s) == s);
        s[at] = '~';
        CHECK(escape_text(s) == s);
        CHECK(is_utf8(s));
        s[at] = '\xff';
        CHECK_FALSE(is_utf8(s));
        CHECK(escape_text(s) == std::string(at, 'a') + "\\xff" + std::string(20 - at, 'a'));
    }
}
