// `qpscope explain`: the numbers of someone else's log, decoded without a
// device. One subcommand per topic, so the shell completes topics and their
// names and a misspelt topic gets "did you mean".
#include <fmt/format.h>
#include <memory>

#include "commands/app.hpp"
#include "commands/option_values.hpp"
#include "commands/emit.hpp"
#include "formatters/explain.hpp"
#include "src/error.hpp"
#include "src/ops/explain.hpp"

namespace qps::commands {

namespace {

struct ExplainFlags {
    std::string log;
    std::vector<std::string> lines;
    std::vector<std::string> values;
    int retry_cnt = -1;
    int rnr_retry = -1;
    std::string verb;
    std::string vendor;
};

void explain_values(const std::string& topic, const ExplainFlags& f, const GlobalOptions& global)
{
    explain::Context c;
    if (f.retry_cnt >= 0)
        c.retry_cnt = f.retry_cnt;
    if (f.rnr_retry >= 0)
        c.rnr_retry = f.rnr_retry;
    c.verb = f.verb;
    c.vendor = f.vendor;
    // A bad value: UsageError, exit 2, nothing printed.
    const std::vector<explain::Explanation> all = ops::explain_values(topic, f.values, c);
    emit(global, "explain", [&](formatters::Printer& p) { formatters::render_explanations(all, p); });
    for (const auto& e : all)
        if (!e.decoded)
            throw ReportedFailure{exit_failed};
}

void explain_text(const ExplainFlags& f, const GlobalOptions& global)
{
    bool interrupted = false, any = false, all_decoded = true;
    if (!f.lines.empty()) {
        const explain::LogReport report = ops::explain_lines(f.lines);
        emit(global, "explain", [&](formatters::Printer& p) { formatters::render_explain_log(report, p); });
        any = report.attributed_lines() > 0;
        all_decoded = report.all_decoded();
    } else {
        // The log streams: each line is written as it is read, nothing of it
        // kept, --json's document too (ExplainLogWriter gives each key once).
        const ops::LogInput log = ops::open_log(f.log);  // unreadable: UsageError, nothing printed
        emit_streamed(global, "explain", [&](formatters::Printer& p) {
            formatters::ExplainLogWriter w(p);
            interrupted = ops::scan_log(log, [&](const explain::LogLine& l) { w.line(l); });
            w.finish(interrupted);
            any = w.attributed() > 0;
            all_decoded = w.all_decoded();
        });
    }
    if (interrupted)
        throw ReportedFailure{exit_interrupted};
    if (!any || !all_decoded)
        throw ReportedFailure{exit_failed};
}

void add_topic(CLI::App& explain_cmd, const explain::TopicInfo& t, const std::shared_ptr<ExplainFlags>& f,
               const GlobalOptions& global)
{
    const std::string topic(t.name);
    CLI::App* cmd = explain_cmd.add_subcommand(topic, std::string(t.what));
    // Not ->required(): CLI11's "value is required" names neither the topic
    // nor what a value may be; the callback does.
    CLI::Option* value = cmd->add_option("value", f->values, fmt::format("One or more values: {}", t.valid))
                             ->type_name("VALUE");
    if (const auto names = explain::value_names(topic); !names.empty())
        value->check(suggest_words(names));
    if (topic == "timeout")
        cmd->add_option("--retry-cnt", f->retry_cnt, "Also give the wait before IBV_WC_RETRY_EXC_ERR at this retry_cnt")
            ->check(CLI::Range(0, 7))
            ->type_name("N");
    if (topic == "rnr-timer")
        cmd->add_option("--rnr-retry", f->rnr_retry,
                        "Also give the wait before IBV_WC_RNR_RETRY_EXC_ERR at this rnr_retry (7: never)")
            ->check(CLI::Range(0, 7))
            ->type_name("N");
    if (topic == "errno")
        cmd->add_option("--verb", f->verb,
                        "The verb or rdma_cm call that returned it: what the errno means there and what to check")
            ->transform(one_of(explain::verb_names()))
            ->type_name("VERB");
    if (topic == "vendor-err")
        cmd->add_option("--vendor", f->vendor, "The provider of the device (default: every provider's reading)")
            ->transform(one_of(explain::vendor_names()))
            ->type_name("PROVIDER");
    cmd->callback([f, topic, valid = std::string(t.valid), &global] {
        if (f->values.empty())
            throw UsageError(fmt::format("explain {} needs one or more values: {}", topic, valid));
        explain_values(topic, *f, global);
    });
}

}  // namespace

void register_explain(CLI::App& app, const GlobalOptions& global)
{
    auto f = std::make_shared<ExplainFlags>();
    CLI::App* cmd = app.add_subcommand(
        "explain",
        "Decode a number from a log without a device: `explain TOPIC VALUE...` for one topic (wc-status 12, "
        "qp-attr-mask 0x12d81, errno 22 --verb modify_qp), or --log/--line for free text (NCCL, UCX, MPI, "
        "perftest, rdma-core, kernel lines). Exit 0 every value decoded, 1 a value without a public meaning or "
        "nothing found, 2 bad usage");
    cmd->add_option("--log", f->log, "Read a log file (or - for standard input) and explain every value found in it")
        ->type_name("FILE");
    cmd->add_option("--line", f->lines, "Explain the values in this line of text (repeatable)")->type_name("TEXT");
    cmd->require_subcommand(0, 1);
    for (const auto& t : explain::topics())
        add_topic(*cmd, t, f, global);
    cmd->callback([cmd, f, &global] {
        if (!cmd->get_subcommands().empty()) {
            if (!f->log.empty() || !f->lines.empty())
                throw UsageError("explain: --log and --line take no topic; give either a topic and values or text");
            return;  // the topic's own callback ran
        }
        if (!f->log.empty() && !f->lines.empty())
            throw UsageError("explain: --log and --line exclude each other");
        if (f->log.empty() && f->lines.empty()) {
            std::string names;
            for (const auto& t : explain::topics())
                names += (names.empty() ? "" : ", ") + std::string(t.name);
            throw UsageError("explain needs a topic and a value, --log FILE or --line TEXT; topics are " + names);
        }
        explain_text(*f, global);
    });
}

}  // namespace qps::commands
