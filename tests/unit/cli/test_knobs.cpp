// The QP options (--tclass ... --min-rnr-timer) as ping-pong, bw, doctor,
// path and the mesh take them: one definition, one conversion.
#include <doctest/doctest.h>
#include <string>
#include <vector>

#include "commands/link_flags.hpp"
#include "src/error.hpp"

using namespace qps::commands;

namespace {

struct Parsed {
    KnobFlags flags;
    CLI::App app{"knobs"};
};

// `args` parsed by a command that registered the knobs of `set`.
void parse(Parsed& p, std::vector<std::string> args, KnobSet set = KnobSet::all)
{
    add_knob_options(&p.app, p.flags, set);
    std::vector<std::string> rev(args.rbegin(), args.rend());
    p.app.parse(rev);
}

std::string usage_error(const KnobFlags& f, bool cm, ibv_qp_type type = IBV_QPT_RC, const char* word = "rc")
{
    try {
        if (cm)
            check_beside_cm(BesideCm(f));
        to_knobs(f, type, word);
    } catch (const qps::UsageError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("to_knobs: nothing given is a default QP's")
{
    Parsed p;
    parse(p, {});
    const qps::verbs::QpKnobs k = to_knobs(p.flags, IBV_QPT_RC, "rc");
    const qps::verbs::QpKnobs d;
    CHECK(k.traffic_class == d.traffic_class);
    CHECK(k.ack_timeout == 14);
    CHECK(k.retry_cnt == 7);
    CHECK(k.rnr_retry == 7);
    CHECK(k.min_rnr_timer == 12);
    CHECK(knob_names_given(&p.app).empty());
}

TEST_CASE("to_knobs: codes and durations, --dscp as a traffic class, the names given")
{
    Parsed p;
    parse(p, {"--dscp", "26", "--sl", "3", "--flow-label", "7", "--pkey-index", "2", "--qp-timeout", "67ms",
              "--retry-cnt", "3", "--rnr-retry", "5", "--min-rnr-timer", "1.28ms"});
    const qps::verbs::QpKnobs k = to_knobs(p.flags, IBV_QPT_RC, "rc");
    CHECK(k.traffic_class == 104);
    CHECK(k.sl == 3);
    CHECK(k.flow_label == 7);
    CHECK(k.pkey_index == 2);
    CHECK(k.ack_timeout == 14);
    CHECK(k.retry_cnt == 3);
    CHECK(k.rnr_retry == 5);
    CHECK(k.min_rnr_timer == 14);
    CHECK(knob_names_given(&p.app) == std::vector<std::string>{"qp-timeout", "retry-cnt", "tclass", "sl", "flow-label",
                                                             "pkey-index", "rnr-retry", "min-rnr-timer"});
}

TEST_CASE("to_knobs: refusals name the option and why")
{
    Parsed p;
    parse(p, {"--sl", "3", "--qp-timeout", "bogus"});
    CHECK(usage_error(p.flags, false).starts_with("--qp-timeout: "));
    p.flags.qp_timeout.clear();
    CHECK(usage_error(p.flags, true) ==
          "--sl: with --cm, rdma_cm sets it on the QP from what it resolved (the path's (RoCE: the priority of the "
          "TOS; give --tclass)); leave it out, or connect by hand");
    p.flags.sl.reset();
    p.flags.rnr_retry = 3;
    CHECK(usage_error(p.flags, false, IBV_QPT_UD, "ud") ==
          "--rnr-retry and --min-rnr-timer are the RC transport's (RNR NAKs): --transport ud has none");
}

TEST_CASE("check_beside_cm: one rule for what rdma_cm sets, the first option given named")
{
    Parsed p;
    parse(p, {"--flow-label", "7"});
    const auto refusal = [&](const BesideCm& b) {
        try {
            check_beside_cm(b);
        } catch (const qps::UsageError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    Parsed none;
    parse(none, {});
    CHECK(refusal(BesideCm(none.flags)).empty());
    BesideCm b(p.flags);
    b.transport = IBV_QPT_UD;
    b.transport_word = "ud";
    b.gid_index = 1u;
    b.mtu = 1024u;
    b.gid_hint = "each rank's address; leave -x out";
    CHECK(refusal(b) == "--cm connects RC QPs (rdma_cm's RDMA_PS_TCP): --transport ud is not possible with it");
    b.transport = IBV_QPT_RC;
    CHECK(refusal(b) == "-x 1: with --cm, rdma_cm picks the GID of each rank's address; leave -x out");
    b.gid_index.reset();
    CHECK(refusal(b).starts_with("-m 1024: with --cm, rdma_cm sets the path MTU"));
    b.mtu.reset();
    CHECK(refusal(b).starts_with("--flow-label: with --cm, rdma_cm sets it on the QP"));
}

TEST_CASE("KnobSet::no_rnr (path): no RNR options; --tclass and --dscp exclude each other")
{
    Parsed p;
    CHECK_THROWS_AS(parse(p, {"--rnr-retry", "3"}, KnobSet::no_rnr), CLI::ParseError);
    Parsed q;
    CHECK_THROWS_AS(parse(q, {"--tclass", "104", "--dscp", "26"}), CLI::ParseError);
    Parsed r;
    CHECK_THROWS_AS(parse(r, {"--sl", "16"}), CLI::ParseError);
}
