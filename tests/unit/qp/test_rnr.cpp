// Why sends ended in RNR_RETRY_EXC_ERR, as `qp post` names it when both
// QPs are held: the dry queue (an SRQ and its depth, or the QP's own), what
// was posted and taken, and the sender's retries. The RNR timer's
// milliseconds are the IB spec's table (9.7.5.2.8), written out here.
#include <doctest/doctest.h>
#include <string>

#include "src/qp/rnr.hpp"
#include "unit/util.hpp"

using qps::qp::rnr_cause;
using qps::qp::RnrFacts;
using qps::test::contains;

TEST_CASE("rnr_cause: an SRQ of depth 4 against 64 sends, rnr-retry 1")
{
    RnrFacts f;
    f.sender_qpn = 0x11;
    f.receiver_qpn = 0x12;
    f.rnr_retry = 1;
    f.min_rnr_timer = 0;
    f.srq = RnrFacts::Srq{3, 4};
    f.receives_posted = 4;
    f.receives_taken = 4;
    f.sends = 64;
    f.sends_ok = 4;
    const std::string t = rnr_cause(f);
    CHECK(contains(t, "the receiver QP 0x12 takes its receives from SRQ 3 of depth 4 (max_wr): 4 posted, 4 taken, 0 "
                      "left when send 5 of 64 arrived"));
    CHECK(contains(t, "min-rnr-timer 0 = 655.36 ms"));
    CHECK(contains(t, "QP 0x11 gave up after rnr-retry 1 (of at most 7"));
    CHECK(contains(t, "The SRQ ran dry: 64 sends in flight against 4 receives it can hold, more than its depth"));
    CHECK(contains(t, "qp srq create --max-wr"));
}

TEST_CASE("rnr_cause: an SRQ deep enough that was not refilled does not blame the depth")
{
    RnrFacts f;
    f.sender_qpn = 0x20;
    f.receiver_qpn = 0x21;
    f.rnr_retry = 0;
    f.min_rnr_timer = 14;  // 1.28 ms
    f.srq = RnrFacts::Srq{1, 256};
    f.receives_posted = 2;
    f.receives_taken = 2;
    f.sends = 8;
    f.sends_ok = 2;
    const std::string t = rnr_cause(f);
    CHECK(contains(t, "from SRQ 1 of depth 256 (max_wr): 2 posted, 2 taken, 0 left when send 3 of 8 arrived"));
    CHECK(contains(t, "min-rnr-timer 14 = 1.28 ms"));
    CHECK(!contains(t, "more than its depth"));
    CHECK(!contains(t, "qp srq create --max-wr"));
    CHECK(contains(t, "qpscope qp post --recv"));
}

TEST_CASE("rnr_cause: a QP's own receive queue")
{
    RnrFacts f;
    f.sender_qpn = 0x30;
    f.receiver_qpn = 0x31;
    f.rnr_retry = 7;
    f.receives_posted = 0;
    f.sends = 1;
    const std::string t = rnr_cause(f);
    CHECK(contains(t, "takes its receives from its own receive queue: 0 posted, 0 taken, 0 left when send 1 of 1"));
    CHECK(contains(t, "rnr-retry 7 (for ever)"));
    CHECK(contains(t, "The receive queue ran dry"));
}
