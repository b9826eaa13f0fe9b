#include "formatters/cm.hpp"

#include <fmt/format.h>

#include "src/host/pid_namespace.hpp"

namespace qps::formatters {

namespace {

// null in JSON (in a table row too), "-" in text: the member is always there.
Value cm_number_or_null(const std::optional<std::uint32_t>& v)
{
    return v ? Value{std::uint64_t{*v}} : Value{nullptr};
}
Value cm_text_or_null(const std::optional<std::string>& v) { return v ? Value{*v} : Value{nullptr}; }

}  // namespace

void render_cm_list(const report::CmListReport& r, Printer& p)
{
    p.datum("pid_namespace", std::string(r.nested_pid_ns ? "nested" : "host"));
    if (r.ids.empty()) {
        p.begin_list("cm_ids", "");
        p.end_list();
        p.note(r.filtered && r.host_total > 0
                   ? fmt::format("no rdma_cm ID matches ({} on this host)", r.host_total)
                   : std::string("no rdma_cm IDs on this host"));
        if (r.nested_pid_ns)
            p.note(host::pid_namespace_note());
        return;
    }
    Table t{{{"device", "DEVICE"},
             {"port", "PORT"},
             {"id", "ID"},
             {"state", "STATE"},
             {"phase", "PHASE"},
             {"port_space", "PS"},
             {"local", "LOCAL"},
             {"remote", "REMOTE"},
             {"qpn", "QPN"},
             {"pid", "PID"},
             {"comm", "COMMAND"},
             {"serves", "SERVES"}},
            {}};
    t.row_count = r.ids.size();
    t.row_at = [&r](std::size_t i, std::vector<Value>& row) {
        const auto& c = r.ids[i];
        row = {cm_text_or_null(c.device), cm_number_or_null(c.port), cm_number_or_null(c.id), c.state,
                          c.phase, c.port_space, cm_text_or_null(c.local), cm_text_or_null(c.remote),
                          c.qpn ? Value{decode::hex_number(*c.qpn)} : Value{nullptr}, cm_number_or_null(c.pid),
                          OutsideBytes{c.comm},
                          // What a kernel consumer's ID serves, with its state: "nvme0 (live)".
                          c.serves.names.empty() ? Value{}
                          : c.serves.state.empty()
                              ? Value{c.serves.names}
                              : Value{fmt::format("{} ({})", c.serves.names, c.serves.state)}};
    };
    p.table("cm_ids",
            r.filtered ? fmt::format("{} of {} rdma_cm ID(s) on this host", r.ids.size(), r.host_total)
                       : fmt::format("{} rdma_cm ID(s)", r.ids.size()),
            t);
    if (r.nested_pid_ns)
        p.note(host::pid_namespace_note());
}

}  // namespace qps::formatters
