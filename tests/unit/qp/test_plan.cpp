// `qp create --to STATE`: the modify steps from RESET, with stated defaults.
// Expected steps written out from the IBA transition tables and plan.hpp's
// list of defaults.
#include <cstdint>
#include <doctest/doctest.h>
#include <string>
#include <vector>

#include "src/ops/qp_session.hpp"
#include "src/qp/plan.hpp"
#include "unit/qp/masks.hpp"

using namespace qps::qp;
using namespace qps::test::masks;
using Strings = std::vector<std::string>;

namespace {

using Gid = std::array<std::uint8_t, 16>;
const Gid v4_gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};

// A request with every member set (values distinct from the defaults).
ModifyRequest everything()
{
    ModifyRequest r;
    r.state = IBV_QPS_SQD;
    r.cur_state = IBV_QPS_RTR;
    r.port = 2;
    r.pkey_index = 3;
    r.qkey = 0x1234;
    r.access = IBV_ACCESS_REMOTE_ATOMIC;
    r.path_mtu = IBV_MTU_2048;
    r.dest_qpn = 0x42;
    r.rq_psn = 11;
    r.sq_psn = 22;
    r.max_rd_atomic = 4;
    r.max_dest_rd_atomic = 5;
    r.min_rnr_timer = 20;
    r.timeout = 18;
    r.retry_cnt = 3;
    r.rnr_retry = 2;
    r.dgid = v4_gid;
    r.dlid = 9;
    r.sl = 4;
    r.sgid_index = 1;
    r.hop_limit = 64;
    r.traffic_class = 106;
    r.flow_label = 77;
    r.static_rate = 15;
    r.path_mig_state = IBV_MIG_MIGRATED;
    return r;
}

}  // namespace

TEST_CASE("plan_steps: RC to RTS with nothing given takes every default")
{
    const auto steps = plan_steps(IBV_QPT_RC, IBV_QPS_RTS, ModifyRequest{}, IBV_MTU_1024);
    REQUIRE(steps.size() == 3);

    // RESET -> INIT
    const ModifyRequest& init = steps[0].request;
    CHECK(init.state == IBV_QPS_INIT);
    CHECK(init.pkey_index == 0);
    CHECK(init.port == 1);
    CHECK(init.access == 7u);  // local_write | remote_write | remote_read
    CHECK_FALSE(init.qkey);
    CHECK(mask_of(init) == (STATE | PKEY | PORT | ACCESS));
    CHECK(steps[0].defaulted == Strings{"pkey-index 0", "port 1", "access local_write,remote_write,remote_read"});

    // INIT -> RTR: dest-qpn and the address vector have no default.
    const ModifyRequest& rtr = steps[1].request;
    CHECK(rtr.state == IBV_QPS_RTR);
    CHECK(rtr.path_mtu == IBV_MTU_1024);
    CHECK(rtr.rq_psn == 0u);
    CHECK(rtr.max_dest_rd_atomic == 1);
    CHECK(rtr.min_rnr_timer == 12);
    CHECK_FALSE(rtr.dest_qpn);
    CHECK_FALSE(rtr.has_av());
    CHECK_FALSE(rtr.dgid);
    CHECK_FALSE(rtr.access);
    CHECK_FALSE(rtr.port);
    CHECK(mask_of(rtr) == (STATE | MTU | RQ_PSN | DEST_RD_ATOMIC | MIN_RNR));
    CHECK(steps[1].defaulted ==
          Strings{"mtu 1024 (the port's active MTU)", "rq-psn 0", "max-dest-rd-atomic 1", "min-rnr-timer 12 (0.64 ms)"});

    // RTR -> RTS
    const ModifyRequest& rts = steps[2].request;
    CHECK(rts.state == IBV_QPS_RTS);
    CHECK(rts.sq_psn == 0u);
    CHECK(rts.max_rd_atomic == 1);
    CHECK(rts.timeout == 14);
    CHECK(rts.retry_cnt == 7);
    CHECK(rts.rnr_retry == 7);
    CHECK_FALSE(rts.min_rnr_timer);
    CHECK(mask_of(rts) == (STATE | SQ_PSN | RD_ATOMIC | TIMEOUT | RETRY | RNR_RETRY));
    CHECK(steps[2].defaulted ==
          Strings{"sq-psn 0", "max-rd-atomic 1", "timeout 14 (67.1 ms)", "retry-cnt 7", "rnr-retry 7 (infinite)"});
}

TEST_CASE("plan_steps: the MTU default is the port's active MTU")
{
    auto steps = plan_steps(IBV_QPT_RC, IBV_QPS_RTR, ModifyRequest{}, IBV_MTU_4096);
    REQUIRE(steps.size() == 2);
    CHECK(steps[1].request.path_mtu == IBV_MTU_4096);
    CHECK(steps[1].defaulted.at(0) == "mtu 4096 (the port's active MTU)");
    steps = plan_steps(IBV_QPT_RC, IBV_QPS_RTR, ModifyRequest{}, IBV_MTU_256);
    CHECK(steps[1].request.path_mtu == IBV_MTU_256);
    CHECK(steps[1].defaulted.at(0) == "mtu 256 (the port's active MTU)");
}

TEST_CASE("plan_steps: RC, user-given values win and are not listed as defaulted")
{
    ModifyRequest given;
    given.port = 2;
    given.access = IBV_ACCESS_LOCAL_WRITE;
    given.dest_qpn = 0x12;
    given.dgid = v4_gid;
    given.sgid_index = 1;
    given.path_mtu = IBV_MTU_4096;
    given.rq_psn = 100;
    given.sq_psn = 200;
    given.timeout = 18;
    given.retry_cnt = 3;
    const auto steps = plan_steps(IBV_QPT_RC, IBV_QPS_RTS, given, IBV_MTU_1024);
    REQUIRE(steps.size() == 3);

    const ModifyRequest& init = steps[0].request;
    CHECK(init.port == 2);
    CHECK(init.access == 1u);
    CHECK(init.pkey_index == 0);
    CHECK_FALSE(init.dest_qpn);  // not an INIT attribute
    CHECK_FALSE(init.has_av());
    CHECK(mask_of(init) == (STATE | PKEY | PORT | ACCESS));
    CHECK(steps[0].defaulted == Strings{"pkey-index 0"});

    const ModifyRequest& rtr = steps[1].request;
    CHECK(rtr.dest_qpn == 0x12u);
    REQUIRE(rtr.dgid.has_value());
    CHECK(*rtr.dgid == v4_gid);
    CHECK(rtr.sgid_index == 1);
    CHECK(rtr.path_mtu == IBV_MTU_4096);  // not the port's 1024
    CHECK(rtr.rq_psn == 100u);
    CHECK(rtr.access == 1u);  // optional on INIT->RTR, given: kept
    CHECK_FALSE(rtr.port);    // PORT is no RTR attribute
    CHECK_FALSE(rtr.sq_psn);
    CHECK_FALSE(rtr.timeout);
    CHECK(mask_of(rtr) == (STATE | AV | MTU | DEST_QPN | RQ_PSN | DEST_RD_ATOMIC | MIN_RNR | ACCESS));
    CHECK(steps[1].defaulted == Strings{"max-dest-rd-atomic 1", "min-rnr-timer 12 (0.64 ms)"});

    const ModifyRequest& rts = steps[2].request;
    CHECK(rts.sq_psn == 200u);
    CHECK(rts.timeout == 18);
    CHECK(rts.retry_cnt == 3);
    CHECK(rts.access == 1u);  // optional on RTR->RTS
    CHECK_FALSE(rts.dest_qpn);
    CHECK_FALSE(rts.has_av());
    CHECK_FALSE(rts.rq_psn);
    CHECK(mask_of(rts) == (STATE | SQ_PSN | RD_ATOMIC | TIMEOUT | RETRY | RNR_RETRY | ACCESS));
    CHECK(steps[2].defaulted == Strings{"max-rd-atomic 1", "rnr-retry 7 (infinite)"});
}

TEST_CASE("plan_steps: every value given leaves nothing defaulted; each step keeps only its attributes")
{
    const auto steps = plan_steps(IBV_QPT_RC, IBV_QPS_RTS, everything(), IBV_MTU_1024);
    REQUIRE(steps.size() == 3);
    for (const auto& s : steps)
        CHECK(s.defaulted.empty());
    // The given target state never leaks into a step.
    CHECK(steps[0].request.state == IBV_QPS_INIT);
    CHECK(steps[1].request.state == IBV_QPS_RTR);
    CHECK(steps[2].request.state == IBV_QPS_RTS);
    // INIT: required PKEY|PORT|ACCESS, nothing optional.
    CHECK(mask_of(steps[0].request) == (STATE | PKEY | PORT | ACCESS));
    CHECK(steps[0].request.pkey_index == 3);
    CHECK(steps[0].request.port == 2);
    CHECK(steps[0].request.access == unsigned{IBV_ACCESS_REMOTE_ATOMIC});
    // RTR: required AV|MTU|DEST_QPN|RQ_PSN|DEST_RD_ATOMIC|MIN_RNR; optional ACCESS|PKEY (ALT is not modelled).
    CHECK(mask_of(steps[1].request) ==
          (STATE | AV | MTU | DEST_QPN | RQ_PSN | DEST_RD_ATOMIC | MIN_RNR | ACCESS | PKEY));
    CHECK(steps[1].request.min_rnr_timer == 20);
    CHECK(steps[1].request.max_dest_rd_atomic == 5);
    CHECK(steps[1].request.dlid == 9);
    CHECK(steps[1].request.flow_label == 77u);
    CHECK_FALSE(steps[1].request.cur_state);
    // RTS: required TIMEOUT|RETRY|RNR_RETRY|SQ_PSN|RD_ATOMIC; optional CUR|ACCESS|MIN_RNR|MIG.
    CHECK(mask_of(steps[2].request) ==
          (STATE | TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | RD_ATOMIC | CUR | ACCESS | MIN_RNR | MIG));
    CHECK(steps[2].request.cur_state == IBV_QPS_RTR);
    CHECK(steps[2].request.path_mig_state == IBV_MIG_MIGRATED);
    CHECK(steps[2].request.rnr_retry == 2);
    CHECK(steps[2].request.max_rd_atomic == 4);
}

TEST_CASE("plan_steps: UC to RTS has no RC-only attributes")
{
    const auto steps = plan_steps(IBV_QPT_UC, IBV_QPS_RTS, ModifyRequest{}, IBV_MTU_2048);
    REQUIRE(steps.size() == 3);
    CHECK(mask_of(steps[0].request) == (STATE | PKEY | PORT | ACCESS));
    CHECK(mask_of(steps[1].request) == (STATE | MTU | RQ_PSN));
    CHECK(steps[1].defaulted == Strings{"mtu 2048 (the port's active MTU)", "rq-psn 0"});
    CHECK(mask_of(steps[2].request) == (STATE | SQ_PSN));
    CHECK(steps[2].defaulted == Strings{"sq-psn 0"});
}

TEST_CASE("plan_steps: UD to RTS takes the qkey default and never an address vector")
{
    const auto steps = plan_steps(IBV_QPT_UD, IBV_QPS_RTS, ModifyRequest{}, IBV_MTU_1024);
    REQUIRE(steps.size() == 3);
    CHECK(steps[0].request.state == IBV_QPS_INIT);
    CHECK(steps[0].request.qkey == 0x11111111u);
    CHECK(steps[0].request.pkey_index == 0);
    CHECK(steps[0].request.port == 1);
    CHECK_FALSE(steps[0].request.access);
    CHECK(mask_of(steps[0].request) == (STATE | PKEY | PORT | QKEY));
    CHECK(steps[0].defaulted == Strings{"pkey-index 0", "port 1", "qkey 0x11111111"});

    CHECK(steps[1].request.state == IBV_QPS_RTR);
    CHECK(mask_of(steps[1].request) == STATE);
    CHECK(steps[1].defaulted.empty());

    CHECK(steps[2].request.state == IBV_QPS_RTS);
    CHECK(steps[2].request.sq_psn == 0u);
    CHECK(mask_of(steps[2].request) == (STATE | SQ_PSN));
    CHECK(steps[2].defaulted == Strings{"sq-psn 0"});

    // Given AV fields, dest-qpn and an MTU are dropped for UD; a given qkey
    // goes wherever the rules allow it.
    ModifyRequest given;
    given.dgid = v4_gid;
    given.sl = 2;
    given.dest_qpn = 5;
    given.path_mtu = IBV_MTU_4096;
    given.qkey = 0x1234;
    const auto ud = plan_steps(IBV_QPT_UD, IBV_QPS_RTS, given, IBV_MTU_1024);
    REQUIRE(ud.size() == 3);
    for (const auto& s : ud) {
        CHECK_FALSE(s.request.has_av());
        CHECK_FALSE(s.request.dest_qpn);
        CHECK_FALSE(s.request.path_mtu);
        CHECK(s.request.qkey == 0x1234u);
    }
    CHECK(ud[0].defaulted == Strings{"pkey-index 0", "port 1"});
    CHECK(mask_of(ud[1].request) == (STATE | QKEY));
    CHECK(mask_of(ud[2].request) == (STATE | SQ_PSN | QKEY));
}

TEST_CASE("plan_steps: the target ends the walk")
{
    auto steps = plan_steps(IBV_QPT_RC, IBV_QPS_INIT, ModifyRequest{}, IBV_MTU_1024);
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].request.state == IBV_QPS_INIT);
    CHECK(steps[0].defaulted.size() == 3);

    steps = plan_steps(IBV_QPT_RC, IBV_QPS_RTR, ModifyRequest{}, IBV_MTU_1024);
    REQUIRE(steps.size() == 2);
    CHECK(steps[1].request.state == IBV_QPS_RTR);

    steps = plan_steps(IBV_QPT_UD, IBV_QPS_INIT, ModifyRequest{}, IBV_MTU_1024);
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].request.qkey == 0x11111111u);
}

// ------------------------------------------------------------------ restrict_to / mask_of

TEST_CASE("restrict_to: keeps the state and the attributes whose bit is in the mask")
{
    const ModifyRequest all = everything();

    ModifyRequest r = restrict_to(all, 0);
    CHECK(r.state == IBV_QPS_SQD);
    CHECK(mask_of(r) == STATE);
    CHECK_FALSE(r.cur_state);
    CHECK_FALSE(r.port);
    CHECK_FALSE(r.dgid);

    r = restrict_to(all, TIMEOUT | AV);
    CHECK(mask_of(r) == (STATE | TIMEOUT | AV));
    CHECK(r.timeout == 18);
    REQUIRE(r.dgid.has_value());
    CHECK(*r.dgid == v4_gid);
    CHECK(r.dlid == 9);
    CHECK(r.sl == 4);
    CHECK(r.sgid_index == 1);
    CHECK(r.hop_limit == 64);
    CHECK(r.traffic_class == 106);
    CHECK(r.flow_label == 77u);
    CHECK(r.static_rate == 15);
    CHECK_FALSE(r.port);  // PORT is its own bit, not part of AV
    CHECK_FALSE(r.retry_cnt);

    r = restrict_to(all, CUR | QKEY | MIG);
    CHECK(mask_of(r) == (STATE | CUR | QKEY | MIG));
    CHECK(r.cur_state == IBV_QPS_RTR);
    CHECK(r.qkey == 0x1234u);
    CHECK(r.path_mig_state == IBV_MIG_MIGRATED);

    // Bits for attributes the request lacks add nothing.
    r = restrict_to(ModifyRequest{}, 0xffffffff);
    CHECK(mask_of(r) == 0u);
    CHECK_FALSE(r.state);
}

TEST_CASE("mask_of: the IBV_QP_* bits of the attributes present")
{
    CHECK(mask_of(ModifyRequest{}) == 0u);
    ModifyRequest r;
    r.state = IBV_QPS_INIT;
    CHECK(mask_of(r) == 1u);
    r.sl = 0;
    CHECK(mask_of(r) == (1u | 128u));
    r.port = 1;
    CHECK(mask_of(r) == (1u | 128u | 32u));
    ModifyRequest only_flow;
    only_flow.flow_label = 0;
    CHECK(mask_of(only_flow) == 128u);
    CHECK(mask_of(everything()) == (STATE | CUR | ACCESS | PKEY | PORT | QKEY | AV | MTU | TIMEOUT | RETRY |
                                    RNR_RETRY | RQ_PSN | RD_ATOMIC | MIN_RNR | SQ_PSN | DEST_RD_ATOMIC | MIG |
                                    DEST_QPN));
    CHECK(mask_of(everything()) == 0x17bffbu);
}

TEST_CASE("qp create: --pair and --to rtr/rts connect (checked for the transport first); one QP does not")
{
    // The target as the command takes it from --to and --pair.
    CHECK(qps::ops::create_target("", true) == IBV_QPS_RTS);
    CHECK(qps::ops::create_target("", false) == IBV_QPS_RESET);
    CHECK(qps::ops::create_target("init", true) == IBV_QPS_INIT);
    CHECK(qps::ops::create_target("rtr", false) == IBV_QPS_RTR);

    const auto spec_for = [](const std::string& to, bool pair) {
        qps::ops::CreateSpec s;
        s.target = qps::ops::create_target(to, pair);
        s.pair = pair;
        return s;
    };
    CHECK(qps::ops::connects(spec_for("", true)));       // qp create --pair: refused on iWARP
    CHECK(qps::ops::connects(spec_for("rts", false)));
    CHECK(qps::ops::connects(spec_for("rtr", false)));
    CHECK_FALSE(qps::ops::connects(spec_for("", false)));  // qp create: one QP in RESET, works on iWARP
    CHECK_FALSE(qps::ops::connects(spec_for("init", false)));
    CHECK_FALSE(qps::ops::connects(spec_for("init", true)));  // two QPs in INIT: nothing is connected
}
