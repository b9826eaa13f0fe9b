#include "src/net/frame.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <vector>

#include "src/error.hpp"
#include "src/util/outside_bytes.hpp"
#include "src/util/json_text.hpp"

namespace qps::net {

namespace {

// nlohmann's messages start with "[json.exception.parse_error.101] ": keep
// what follows, made printable (the lexer echoes raw input bytes).
std::string json_error_text(const std::exception& e)
{
    std::string_view what = e.what();
    if (what.starts_with("[json.exception.")) {
        if (const auto end = what.find("] "); end != std::string_view::npos)
            what.remove_prefix(end + 2);
    }
    return printable(what, 200);
}

}  // namespace

std::string printable(std::string_view bytes, std::size_t max)
{
    std::string out = util::escape_text(bytes.substr(0, max));
    if (bytes.size() > max)
        out += "...";
    return out;
}

std::string quote(const Json& value, std::size_t max)
{
    std::string s = value.dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
    if (s.size() > max)
        s = s.substr(0, max) + "...";
    return s;
}

std::string encode_frame(const Json& message)
{
    const std::string body = util::json_text(message);
    if (body.size() > max_frame_bytes)
        throw OperationError(fmt::format("exchange message {} of {} bytes exceeds the limit of {} bytes",
                                         message.is_object() && message.contains("type") ? quote(message["type"])
                                                                                         : std::string("?"),
                                         body.size(), max_frame_bytes));
    const auto len = static_cast<std::uint32_t>(body.size());
    std::string frame(frame_magic.begin(), frame_magic.end());
    frame += static_cast<char>(len >> 24);
    frame += static_cast<char>(len >> 16);
    frame += static_cast<char>(len >> 8);
    frame += static_cast<char>(len);
    frame += body;
    return frame;
}

std::uint32_t decode_frame_header(std::span<const std::uint8_t, frame_header_bytes> header)
{
    if (!std::equal(frame_magic.begin(), frame_magic.end(), header.begin(),
                    [](char m, std::uint8_t b) { return static_cast<std::uint8_t>(m) == b; }))
        throw OperationError(fmt::format(
            "received bytes that are not a qpscope exchange frame (\"{}\"): is a program other than qpscope "
            "on the other end?",
            printable(std::string_view(reinterpret_cast<const char*>(header.data()), header.size()))));
    const std::uint32_t len = (std::uint32_t{header[4]} << 24) | (std::uint32_t{header[5]} << 16) |
                              (std::uint32_t{header[6]} << 8) | std::uint32_t{header[7]};
    if (len < min_frame_bytes || len > max_frame_bytes)
        throw OperationError(
            fmt::format("message length {} is outside {}..{} bytes", len, min_frame_bytes, max_frame_bytes));
    return len;
}

Json decode_frame_body(std::string_view body)
{
    // Names already seen in each open object, innermost last.
    std::vector<std::vector<std::string>> open_objects;
    const Json::parser_callback_t strict = [&](int depth, Json::parse_event_t event, Json& parsed) {
        switch (event) {
        case Json::parse_event_t::object_start:
        case Json::parse_event_t::array_start:
            if (depth >= max_json_depth)
                throw OperationError(
                    fmt::format("message nests objects and arrays deeper than {} levels", max_json_depth));
            if (event == Json::parse_event_t::object_start)
                open_objects.emplace_back();
            break;
        case Json::parse_event_t::object_end:
            if (!open_objects.empty())
                open_objects.pop_back();
            break;
        case Json::parse_event_t::key: {
            const auto& name = parsed.get_ref<const std::string&>();
            if (!open_objects.empty()) {
                auto& seen = open_objects.back();
                if (std::find(seen.begin(), seen.end(), name) != seen.end())
                    throw OperationError(fmt::format("message has member {} twice", quote(parsed)));
                seen.push_back(name);
            }
            break;
        }
        default:
            break;
        }
        return true;
    };
    Json j;
    try {
        j = Json::parse(body, strict);
    } catch (const Json::exception& e) {
        throw OperationError(fmt::format("message is not valid JSON: {}", json_error_text(e)));
    }
    if (!j.is_object())
        throw OperationError(fmt::format("message is not a JSON object but {}", quote(j)));
    const auto type = j.find("type");
    if (type == j.end())
        throw OperationError(fmt::format("message has no \"type\" member: {}", quote(j)));
    if (!type->is_string() || type->get_ref<const std::string&>().empty())
        throw OperationError(fmt::format("message member \"type\" is {}, must be a non-empty string", quote(*type)));
    return j;
}

Json decode_frame(std::string_view bytes)
{
    if (bytes.size() < frame_header_bytes)
        throw OperationError(
            fmt::format("frame of {} bytes is shorter than its {}-byte header", bytes.size(), frame_header_bytes));
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
    const std::uint32_t len = decode_frame_header(std::span<const std::uint8_t, frame_header_bytes>(data, frame_header_bytes));
    const std::string_view body = bytes.substr(frame_header_bytes);
    if (body.size() != len)
        throw OperationError(fmt::format("frame announces {} body bytes but carries {}", len, body.size()));
    return decode_frame_body(body);
}

}  // namespace qps::net
