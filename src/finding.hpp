// One result of a host check: what `doctor` lists, and what the test and
// qp commands turn into their error before any network step. Every check
// of src/health/ returns these, so a fault reads the same wherever it is
// found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qps {

enum class Status { ok, warn, fail, skipped };

std::string_view status_name(Status s);

// Where a fault lies: in the host (exit 1 when a command stops on it), or in
// an option value the user gave (exit 2).
enum class Cause { host, option };

struct Finding {
    std::string id;                      // e.g. "port.state", stable for scripts
    Status status = Status::ok;
    std::string device;                  // empty: the host as a whole
    std::optional<std::uint32_t> port;
    std::string summary;                 // what was seen, in words, one line
    // The raw values behind the summary, as name and text.
    std::vector<std::pair<std::string, std::string>> seen;
    std::string why;                     // why it matters (not for ok)
    std::string fix;                     // what to do (not for ok)
    Cause cause = Cause::host;

    bool failed() const { return status == Status::fail; }
};

Finding ok(std::string id, std::string summary);

// The one-line error a command stops with: "<summary>; fix: <fix>".
std::string error_line(const Finding& f);

// Throws the error of the first failed finding: UsageError for an option
// value, OperationError for the host.
void throw_first_failure(const std::vector<Finding>& findings);

}  // namespace qps
