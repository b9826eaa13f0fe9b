#include <cstdint>
#include <doctest/doctest.h>
#include <string>
#include <vector>

#include "src/qp/transitions.hpp"
#include "unit/qp/masks.hpp"

using namespace qps::qp;
using namespace qps::test::masks;

namespace {

struct Expect {
    ibv_qp_state cur;
    ibv_qp_state next;
    std::uint32_t required;
    std::uint32_t optional;
};

const std::vector<ibv_qp_state> all_states{IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
                                           IBV_QPS_SQD,   IBV_QPS_SQE,  IBV_QPS_ERR};

// Every state -> RESET, every state but RESET -> ERR, RESET -> RESET.
std::vector<Expect> teardown_rules(bool sqe)
{
    std::vector<Expect> v{{IBV_QPS_RESET, IBV_QPS_RESET, 0, 0}};
    for (auto s : {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR}) {
        if (s == IBV_QPS_SQE && !sqe)
            continue;
        v.push_back({s, IBV_QPS_RESET, 0, 0});
        v.push_back({s, IBV_QPS_ERR, 0, 0});
    }
    return v;
}

// Checks every pair of states: the expected ones exist with exactly their
// masks (and pass with exactly the required mask), all others do not.
void check_type(ibv_qp_type type, const std::vector<Expect>& expected)
{
    for (auto cur : all_states) {
        for (auto next : all_states) {
            CAPTURE(cur);
            CAPTURE(next);
            const Expect* e = nullptr;
            for (const auto& x : expected)
                if (x.cur == cur && x.next == next)
                    e = &x;
            const TransitionCheck c = check_transition(cur, next, type, 0);
            if (!e) {
                CHECK_FALSE(c.exists);
                CHECK_FALSE(c.ok());
                continue;
            }
            CHECK(c.exists);
            CHECK(c.required == e->required);
            CHECK(c.optional == e->optional);
            CHECK(c.missing == e->required);
            CHECK(c.forbidden == 0);
            CHECK(check_transition(cur, next, type, e->required).ok());
            CHECK(check_transition(cur, next, type, e->required | e->optional).ok());
        }
    }
}

}  // namespace

TEST_CASE("RC: every transition and its attributes")
{
    std::vector<Expect> rc = teardown_rules(true);
    rc.insert(rc.end(), {
        {IBV_QPS_RESET, IBV_QPS_INIT, PKEY | PORT | ACCESS, 0},
        {IBV_QPS_INIT, IBV_QPS_INIT, 0, PKEY | PORT | ACCESS},
        {IBV_QPS_INIT, IBV_QPS_RTR, AV | MTU | DEST_QPN | RQ_PSN | DEST_RD_ATOMIC | MIN_RNR, ALT | ACCESS | PKEY},
        {IBV_QPS_RTR, IBV_QPS_RTS, SQ_PSN | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC,
         CUR | ALT | ACCESS | MIN_RNR | MIG},
        {IBV_QPS_RTS, IBV_QPS_RTS, 0, CUR | ACCESS | ALT | MIG | MIN_RNR},
        {IBV_QPS_RTS, IBV_QPS_SQD, 0, SQD_NOTIFY},
        {IBV_QPS_SQD, IBV_QPS_RTS, 0, CUR | ALT | ACCESS | MIN_RNR | MIG},
        {IBV_QPS_SQD, IBV_QPS_SQD, 0,
         PORT | AV | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC | DEST_RD_ATOMIC | ALT | ACCESS | PKEY |
             MIN_RNR | MIG},
    });
    check_type(IBV_QPT_RC, rc);
}

TEST_CASE("UC: every transition and its attributes")
{
    std::vector<Expect> uc = teardown_rules(true);
    uc.insert(uc.end(), {
        {IBV_QPS_RESET, IBV_QPS_INIT, PKEY | PORT | ACCESS, 0},
        {IBV_QPS_INIT, IBV_QPS_INIT, 0, PKEY | PORT | ACCESS},
        {IBV_QPS_INIT, IBV_QPS_RTR, AV | MTU | DEST_QPN | RQ_PSN, ALT | ACCESS | PKEY},
        {IBV_QPS_RTR, IBV_QPS_RTS, SQ_PSN, CUR | ALT | ACCESS | MIG},
        {IBV_QPS_RTS, IBV_QPS_RTS, 0, CUR | ACCESS | ALT | MIG},
        {IBV_QPS_RTS, IBV_QPS_SQD, 0, SQD_NOTIFY},
        {IBV_QPS_SQD, IBV_QPS_RTS, 0, CUR | ALT | ACCESS | MIG},
        {IBV_QPS_SQD, IBV_QPS_SQD, 0, AV | ALT | ACCESS | PKEY | MIG},
        {IBV_QPS_SQE, IBV_QPS_RTS, 0, CUR | ACCESS},
    });
    check_type(IBV_QPT_UC, uc);
}

TEST_CASE("UD: every transition and its attributes")
{
    std::vector<Expect> ud = teardown_rules(true);
    ud.insert(ud.end(), {
        {IBV_QPS_RESET, IBV_QPS_INIT, PKEY | PORT | QKEY, 0},
        {IBV_QPS_INIT, IBV_QPS_INIT, 0, PKEY | PORT | QKEY},
        {IBV_QPS_INIT, IBV_QPS_RTR, 0, PKEY | QKEY},
        {IBV_QPS_RTR, IBV_QPS_RTS, SQ_PSN, CUR | QKEY},
        {IBV_QPS_RTS, IBV_QPS_RTS, 0, CUR | QKEY},
        {IBV_QPS_RTS, IBV_QPS_SQD, 0, SQD_NOTIFY},
        {IBV_QPS_SQD, IBV_QPS_RTS, 0, CUR | QKEY},
        {IBV_QPS_SQD, IBV_QPS_SQD, 0, PKEY | QKEY},
        {IBV_QPS_SQE, IBV_QPS_RTS, 0, CUR | QKEY},
    });
    check_type(IBV_QPT_UD, ud);
}

TEST_CASE("RAW_PACKET: port only, rate limit on the way to and in RTS")
{
    std::vector<Expect> raw = teardown_rules(true);
    raw.insert(raw.end(), {
        {IBV_QPS_RESET, IBV_QPS_INIT, PORT, 0},
        {IBV_QPS_INIT, IBV_QPS_INIT, 0, 0},
        {IBV_QPS_INIT, IBV_QPS_RTR, 0, 0},
        {IBV_QPS_RTR, IBV_QPS_RTS, 0, RATE},
        {IBV_QPS_RTS, IBV_QPS_RTS, 0, RATE},
        {IBV_QPS_RTS, IBV_QPS_SQD, 0, 0},
        {IBV_QPS_SQD, IBV_QPS_RTS, 0, 0},
        {IBV_QPS_SQD, IBV_QPS_SQD, 0, 0},
        {IBV_QPS_SQE, IBV_QPS_RTS, 0, 0},
    });
    check_type(IBV_QPT_RAW_PACKET, raw);
}

TEST_CASE("XRC: initiator sends like RC without a receive side, target receives like RC")
{
    std::vector<Expect> ini = teardown_rules(true);
    ini.insert(ini.end(), {
        {IBV_QPS_RESET, IBV_QPS_INIT, PKEY | PORT | ACCESS, 0},
        {IBV_QPS_INIT, IBV_QPS_INIT, 0, PKEY | PORT | ACCESS},
        {IBV_QPS_INIT, IBV_QPS_RTR, AV | MTU | DEST_QPN | RQ_PSN, ALT | ACCESS | PKEY},
        {IBV_QPS_RTR, IBV_QPS_RTS, SQ_PSN | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC, CUR | ALT | ACCESS | MIG},
        {IBV_QPS_RTS, IBV_QPS_RTS, 0, CUR | ACCESS | ALT | MIG},
        {IBV_QPS_RTS, IBV_QPS_SQD, 0, SQD_NOTIFY},
        {IBV_QPS_SQD, IBV_QPS_RTS, 0, CUR | ALT | ACCESS | MIG},
        {IBV_QPS_SQD, IBV_QPS_SQD, 0,
         PORT | AV | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC | ALT | ACCESS | PKEY | MIG},
    });
    check_type(IBV_QPT_XRC_SEND, ini);

    std::vector<Expect> tgt = teardown_rules(true);
    tgt.insert(tgt.end(), {
        {IBV_QPS_RESET, IBV_QPS_INIT, PKEY | PORT | ACCESS, 0},
        {IBV_QPS_INIT, IBV_QPS_INIT, 0, PKEY | PORT | ACCESS},
        {IBV_QPS_INIT, IBV_QPS_RTR, AV | MTU | DEST_QPN | RQ_PSN | DEST_RD_ATOMIC | MIN_RNR, ALT | ACCESS | PKEY},
        {IBV_QPS_RTR, IBV_QPS_RTS, SQ_PSN | TIMEOUT, CUR | ALT | ACCESS | MIN_RNR | MIG},
        {IBV_QPS_RTS, IBV_QPS_RTS, 0, CUR | ACCESS | ALT | MIG | MIN_RNR},
        {IBV_QPS_RTS, IBV_QPS_SQD, 0, SQD_NOTIFY},
        {IBV_QPS_SQD, IBV_QPS_RTS, 0, CUR | ALT | ACCESS | MIN_RNR | MIG},
        {IBV_QPS_SQD, IBV_QPS_SQD, 0, PORT | AV | TIMEOUT | DEST_RD_ATOMIC | ALT | ACCESS | PKEY | MIN_RNR | MIG},
    });
    check_type(IBV_QPT_XRC_RECV, tgt);
}

TEST_CASE("transitions that do not exist")
{
    CHECK_FALSE(check_transition(IBV_QPS_RESET, IBV_QPS_RTS, IBV_QPT_RC, 0).exists);
    CHECK_FALSE(check_transition(IBV_QPS_RESET, IBV_QPS_RTR, IBV_QPT_UD, 0).exists);
    CHECK_FALSE(check_transition(IBV_QPS_RESET, IBV_QPS_ERR, IBV_QPT_RC, 0).exists);
    CHECK_FALSE(check_transition(IBV_QPS_RTR, IBV_QPS_RTR, IBV_QPT_RC, 0).exists);
    CHECK_FALSE(check_transition(IBV_QPS_RTS, IBV_QPS_SQE, IBV_QPT_UD, 0).exists);
    CHECK_FALSE(check_transition(IBV_QPS_SQE, IBV_QPS_RTS, IBV_QPT_RC, 0).exists);
    CHECK_FALSE(check_transition(IBV_QPS_ERR, IBV_QPS_INIT, IBV_QPT_RC, 0).exists);
    CHECK_FALSE(check_transition(IBV_QPS_INIT, IBV_QPS_RTS, IBV_QPT_RC, 0).exists);
    CHECK_FALSE(check_transition(IBV_QPS_UNKNOWN, IBV_QPS_RESET, IBV_QPT_RC, 0).exists);
    CHECK_FALSE(check_transition(IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPT_DRIVER, 0).exists);
    const TransitionCheck c = check_transition(IBV_QPS_RESET, IBV_QPS_RTS, IBV_QPT_RC, IBV_QP_SQ_PSN);
    CHECK(c.missing == 0);
    CHECK(c.forbidden == 0);
    CHECK(c.required == 0);
    CHECK(c.optional == 0);
}

TEST_CASE("missing and forbidden attributes")
{
    // IBV_QP_STATE in the mask is what asks for the move: ignored.
    CHECK(check_transition(IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPT_RC, IBV_QP_STATE | PKEY | PORT | ACCESS).ok());

    auto c = check_transition(IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPT_RC, AV | MTU | DEST_RD_ATOMIC | MIN_RNR);
    CHECK(c.exists);
    CHECK(c.missing == (DEST_QPN | RQ_PSN));
    CHECK(c.forbidden == 0);

    c = check_transition(IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPT_UD, PKEY | PORT | QKEY | ACCESS);
    CHECK(c.missing == 0);
    CHECK(c.forbidden == ACCESS);

    c = check_transition(IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPT_RC, PKEY | PORT | QKEY);
    CHECK(c.missing == ACCESS);
    CHECK(c.forbidden == QKEY);

    // cur-state only on the way to RTS from RTR, RTS, SQD, SQE.
    CHECK(check_transition(IBV_QPS_RTS, IBV_QPS_RTS, IBV_QPT_RC, CUR).ok());
    CHECK(check_transition(IBV_QPS_INIT, IBV_QPS_INIT, IBV_QPT_RC, CUR).forbidden == CUR);
    CHECK(check_transition(IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPT_RC, CUR).forbidden == CUR);
    CHECK(check_transition(IBV_QPS_RTS, IBV_QPS_ERR, IBV_QPT_RC, CUR).forbidden == CUR);

    // Resizing (IBV_QP_CAP) is in no transition; neither are unknown bits.
    CHECK(check_transition(IBV_QPS_RTS, IBV_QPS_RTS, IBV_QPT_RC, IBV_QP_CAP).forbidden == IBV_QP_CAP);
    CHECK(check_transition(IBV_QPS_RTS, IBV_QPS_RTS, IBV_QPT_RC, 1u << 21).forbidden == (1u << 21));
    // Rate limit only for raw packet QPs.
    CHECK(check_transition(IBV_QPS_RTS, IBV_QPS_RTS, IBV_QPT_RC, RATE).forbidden == RATE);
    CHECK(check_transition(IBV_QPS_RTS, IBV_QPS_RTS, IBV_QPT_RAW_PACKET, RATE).ok());
    // Moving to ERR or RESET takes nothing else.
    CHECK(check_transition(IBV_QPS_RTS, IBV_QPS_ERR, IBV_QPT_RC, TIMEOUT).forbidden == TIMEOUT);
}

TEST_CASE("next_states: onward states first, then RESET and ERR")
{
    using V = std::vector<ibv_qp_state>;
    CHECK(next_states(IBV_QPS_RESET, IBV_QPT_RC) == V{IBV_QPS_INIT, IBV_QPS_RESET});
    CHECK(next_states(IBV_QPS_INIT, IBV_QPT_RC) == V{IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RESET, IBV_QPS_ERR});
    CHECK(next_states(IBV_QPS_RTR, IBV_QPT_RC) == V{IBV_QPS_RTS, IBV_QPS_RESET, IBV_QPS_ERR});
    CHECK(next_states(IBV_QPS_RTS, IBV_QPT_UD) == V{IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_RESET, IBV_QPS_ERR});
    CHECK(next_states(IBV_QPS_SQD, IBV_QPT_UC) == V{IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_RESET, IBV_QPS_ERR});
    CHECK(next_states(IBV_QPS_SQE, IBV_QPT_UD) == V{IBV_QPS_RTS, IBV_QPS_RESET, IBV_QPS_ERR});
    CHECK(next_states(IBV_QPS_SQE, IBV_QPT_RC) == V{IBV_QPS_RESET, IBV_QPS_ERR});
    CHECK(next_states(IBV_QPS_ERR, IBV_QPT_RC) == V{IBV_QPS_RESET, IBV_QPS_ERR});
    CHECK(next_states(IBV_QPS_UNKNOWN, IBV_QPT_RC).empty());
    CHECK(next_states(IBV_QPS_RESET, IBV_QPT_DRIVER).empty());
}

TEST_CASE("explain: missing, forbidden, allowed")
{
    auto c = check_transition(IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPT_RC, AV | MTU | DEST_RD_ATOMIC | MIN_RNR);
    CHECK(explain(c, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPT_RC) ==
          "INIT→RTR on RC needs rq-psn, dest-qpn (missing); valid attributes: required address vector "
          "(dlid/dgid/sl/...), mtu, rq-psn, min-rnr-timer, max-dest-rd-atomic, dest-qpn; optional access, "
          "pkey-index, alternate path (alt-dlid/alt-port/alt-timeout/...)");

    c = check_transition(IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPT_UD, PKEY | PORT | QKEY | ACCESS);
    CHECK(explain(c, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPT_UD) ==
          "RESET→INIT on UD does not take access (forbidden); valid attributes: required pkey-index, port, "
          "qkey; nothing optional");

    c = check_transition(IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPT_RC, PKEY | PORT | QKEY);
    CHECK(explain(c, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPT_RC) ==
          "RESET→INIT on RC needs access (missing); does not take qkey (forbidden); valid attributes: "
          "required access, pkey-index, port; nothing optional");

    c = check_transition(IBV_QPS_INIT, IBV_QPS_INIT, IBV_QPT_RC, CUR);
    CHECK(explain(c, IBV_QPS_INIT, IBV_QPS_INIT, IBV_QPT_RC) ==
          "INIT→INIT on RC does not take cur-state (forbidden; cur-state is only accepted on the way to RTS "
          "from RTR, RTS, SQD or SQE); valid attributes: none required; optional access, pkey-index, port");

    c = check_transition(IBV_QPS_RTS, IBV_QPS_RTS, IBV_QPT_RC, 1u << 21);
    CHECK(explain(c, IBV_QPS_RTS, IBV_QPS_RTS, IBV_QPT_RC) ==
          "RTS→RTS on RC does not take 0x200000 (forbidden); valid attributes: none required; optional "
          "cur-state, access, alternate path (alt-dlid/alt-port/alt-timeout/...), min-rnr-timer, path-mig-state");

    c = check_transition(IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPT_UD, SQ_PSN);
    CHECK(explain(c, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPT_UD) ==
          "RTR→RTS on UD is allowed; valid attributes: required sq-psn; optional cur-state, qkey");

    c = check_transition(IBV_QPS_RTS, IBV_QPS_ERR, IBV_QPT_RC, 0);
    CHECK(explain(c, IBV_QPS_RTS, IBV_QPS_ERR, IBV_QPT_RC) ==
          "RTS→ERR on RC is allowed; valid attributes: none (state only)");
}

TEST_CASE("explain: transitions that do not exist name the valid ones")
{
    auto c = check_transition(IBV_QPS_RESET, IBV_QPS_RTS, IBV_QPT_RC, 0);
    CHECK(explain(c, IBV_QPS_RESET, IBV_QPS_RTS, IBV_QPT_RC) ==
          "RESET→RTS does not exist for RC; valid transitions from RESET are: INIT, RESET");

    c = check_transition(IBV_QPS_RTR, IBV_QPS_RTR, IBV_QPT_RC, 0);
    CHECK(explain(c, IBV_QPS_RTR, IBV_QPS_RTR, IBV_QPT_RC) ==
          "RTR→RTR does not exist for RC; valid transitions from RTR are: RTS, RESET, ERR");

    c = check_transition(IBV_QPS_RESET, IBV_QPS_ERR, IBV_QPT_UD, 0);
    CHECK(explain(c, IBV_QPS_RESET, IBV_QPS_ERR, IBV_QPT_UD) ==
          "RESET→ERR does not exist for UD (a QP leaves RESET only for INIT); valid transitions from RESET "
          "are: INIT, RESET");

    c = check_transition(IBV_QPS_RTS, IBV_QPS_SQE, IBV_QPT_UD, 0);
    CHECK(explain(c, IBV_QPS_RTS, IBV_QPS_SQE, IBV_QPT_UD) ==
          "RTS→SQE does not exist for UD (only the device moves a QP to SQE, after a send error); valid "
          "transitions from RTS are: RTS, SQD, RESET, ERR");

    c = check_transition(IBV_QPS_SQE, IBV_QPS_RTS, IBV_QPT_RC, 0);
    CHECK(explain(c, IBV_QPS_SQE, IBV_QPS_RTS, IBV_QPT_RC) ==
          "SQE→RTS does not exist for RC (RC QPs never enter SQE: a send error moves them to ERR); valid "
          "transitions from SQE are: RESET, ERR");

    c = check_transition(IBV_QPS_UNKNOWN, IBV_QPS_RTS, IBV_QPT_RC, 0);
    CHECK(explain(c, IBV_QPS_UNKNOWN, IBV_QPS_RTS, IBV_QPT_RC) ==
          "UNKNOWN→RTS does not exist for RC (UNKNOWN is not a state a QP can be moved from or to); there "
          "are no transitions from UNKNOWN");

    c = check_transition(IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPT_DRIVER, 0);
    CHECK(explain(c, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPT_DRIVER) ==
          "INIT→RTR on DRIVER: DRIVER QPs follow their provider's own transition rules, which qpscope does "
          "not know");
}

TEST_CASE("the rule table: every rule names a known type and state pair")
{
    const auto rules = transition_rules();
    CHECK(rules.size() == 48);
    for (const auto& r : rules) {
        CHECK(r.types != 0);
        CHECK((r.required & r.optional) == 0);
    }
}
