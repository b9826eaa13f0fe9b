// Bytes from outside (process names, netdev and device names, hostnames,
// log lines, what a peer sends, the environment) are bytes, not UTF-8. The
// one rule for showing them, used by both printers and by every place that
// writes JSON or a message of its own:
//
// - JSON: valid UTF-8 always. Each maximal subpart of an ill-formed sequence
//   (Unicode 15, 3.9 "U+FFFD Substitution of Maximal Subparts", the practice
//   of the WHATWG decoder and of nlohmann's error_handler_t::replace) becomes
//   one U+FFFD; well-formed sequences are kept, control characters too (JSON
//   escapes them). Where the exact bytes matter (process names) a `*_raw`
//   member carries them in hex.
// - Text: control characters (C0, DEL, C1) and the bytes of ill-formed
//   sequences are shown escaped, as `ls -b` does: \a \b \t \n \v \f \r \e,
//   else \xNN per byte (a C1 control U+009B is "\xc2\x9b"); every other
//   well-formed character is kept. A backslash is kept as is, so escaping
//   escaped text changes nothing (the JSON `*_raw` members are exact).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace qps::util {

// One step of decoding: the length of the well-formed UTF-8 sequence at the
// start of `bytes`, or, when there is none, the length of the maximal
// subpart of an ill-formed one (at least 1). Empty input: {0, true}.
struct Utf8Step {
    std::size_t length;
    bool valid;
};
Utf8Step utf8_step(std::string_view bytes);

// Whether `bytes` is well-formed UTF-8 (no overlong forms, no surrogates,
// nothing above U+10FFFF).
bool is_utf8(std::string_view bytes);

// For JSON: `bytes` with each maximal ill-formed subpart replaced by U+FFFD.
std::string to_utf8(std::string_view bytes);

// For text (a terminal or a pipe alike): control characters and ill-formed
// bytes escaped, see above. The result is printable, one line, valid UTF-8.
std::string escape_text(std::string_view bytes);
// escape_text(bytes) appended to `out` (no string of its own).
void append_escaped(std::string& out, std::string_view bytes);

// Lowercase hex, two digits a byte, nothing between ("ff1b5b").
std::string hex_bytes(std::string_view bytes);

}  // namespace qps::util
