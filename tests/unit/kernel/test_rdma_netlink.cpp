#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cstring>
#include <doctest/doctest.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <string>
#include <vector>

#include "src/error.hpp"
#include "src/kernel/rdma_netlink.hpp"

using namespace qps::kernel;

namespace {

// A buffer for one synthetic RDMA_NLDEV_CMD_RES_QP_GET reply, built as the
// kernel's res_get_common_dumpit() builds it: device handle, then the RES_QP
// table of RES_QP_ENTRY nests.
struct QpMessage {
    alignas(nlmsghdr) char buf[8192]{};
    nlmsghdr* nlh;
    nlattr* table = nullptr;

    explicit QpMessage(std::uint32_t dev_index = 3, const char* dev_name = "rxe0")
    {
        nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET);
        nlh->nlmsg_flags = NLM_F_MULTI;
        nlh->nlmsg_seq = 42;
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
        mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, dev_name);
    }
    void open_table() { table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP); }
    void close_table() { mnl_attr_nest_end(nlh, table); }
    nlattr* open_entry() { return mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY); }
    void close_entry(nlattr* e) { mnl_attr_nest_end(nlh, e); }

    // What fill_res_qp_entry() puts for a user RC QP in RTS.
    void put_user_rc_entry(std::uint32_t lqpn, std::uint32_t rqpn)
    {
        nlattr* e = open_entry();
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, lqpn);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, 5);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 4321);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQPN, rqpn);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQ_PSN, 0x123456);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, 0xabcdef);
        mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, 2);
        mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);   // IB_QPT_RC
        mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);  // IB_QPS_RTS
        close_entry(e);
    }
    // What it puts for the GSI QP that ib_core owns.
    void put_kernel_gsi_entry()
    {
        nlattr* e = open_entry();
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 1);
        mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, "ib_core");
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, 0);
        mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 1);   // IB_QPT_GSI
        mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
        close_entry(e);
    }
};

// Checks that parsing throws OperationError mentioning `needle` and leaves
// what was already in the output alone.
void check_rejected(const nlmsghdr* nlh, const std::string& needle)
{
    std::vector<KernelQp> out(1);
    out[0].lqpn = 77;
    try {
        parse_res_qp_message(nlh, out);
        FAIL("accepted a malformed message");
    } catch (const qps::OperationError& e) {
        const std::string what = e.what();
        CHECK_MESSAGE(what.find("malformed RDMA netlink reply") != std::string::npos, what);
        CHECK_MESSAGE(what.find(needle) != std::string::npos, what);
    }
    REQUIRE(out.size() == 1);
    CHECK(out[0].lqpn == 77);
}

}  // namespace

TEST_CASE("parse_res_qp_message reads a full user RC entry")
{
    QpMessage m(7, "mlx5_0");
    m.open_table();
    m.put_user_rc_entry(0x11, 0x22);
    m.close_table();

    std::vector<KernelQp> out;
    parse_res_qp_message(m.nlh, out);
    REQUIRE(out.size() == 1);
    const KernelQp& q = out[0];
    CHECK(q.dev_index == 7);
    CHECK(q.dev_name == "mlx5_0");
    CHECK(q.port == 1);
    CHECK(q.lqpn == 0x11);
    CHECK(q.rqpn == 0x22u);
    CHECK(q.type == 2);
    CHECK(q.state == 3);
    CHECK(q.path_mig_state == std::uint8_t{2});
    CHECK(q.sq_psn == 0xabcdefu);
    CHECK(q.rq_psn == 0x123456u);
    CHECK(q.pdn == 5u);
    CHECK(q.pid == 4321u);
    CHECK(q.comm.empty());  // list_kernel_qps() names the process, not the parser
    CHECK(q.driver.empty());
}

TEST_CASE("parse_res_qp_message reads two entries and appends them")
{
    QpMessage m;
    m.open_table();
    m.put_kernel_gsi_entry();
    m.put_user_rc_entry(17, 18);
    m.close_table();

    std::vector<KernelQp> out(1);  // what an earlier message left
    parse_res_qp_message(m.nlh, out);
    REQUIRE(out.size() == 3);
    const KernelQp& gsi = out[1];
    CHECK(gsi.dev_index == 3);
    CHECK(gsi.dev_name == "rxe0");
    CHECK(gsi.lqpn == 1);
    CHECK(gsi.type == 1);
    CHECK(gsi.comm == "ib_core");
    CHECK_FALSE(gsi.pid);
    CHECK_FALSE(gsi.pdn);
    CHECK_FALSE(gsi.rqpn);
    CHECK_FALSE(gsi.rq_psn);
    CHECK_FALSE(gsi.path_mig_state);
    CHECK(gsi.sq_psn == 0u);
    CHECK(out[2].lqpn == 17);
    CHECK(out[2].rqpn == 18u);
    CHECK(out[2].dev_name == "rxe0");
}

TEST_CASE("parse_res_qp_message: optional attributes may be missing")
{
    QpMessage m;
    m.open_table();
    nlattr* e = m.open_entry();  // a UD QP right after create: no port yet
    mnl_attr_put_u32(m.nlh, RDMA_NLDEV_ATTR_RES_LQPN, 99);
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_TYPE, 4);
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_STATE, 0);
    m.close_entry(e);
    m.close_table();

    std::vector<KernelQp> out;
    parse_res_qp_message(m.nlh, out);
    REQUIRE(out.size() == 1);
    const KernelQp& q = out[0];
    CHECK(q.port == 0);
    CHECK(q.lqpn == 99);
    CHECK(q.type == 4);
    CHECK(q.state == 0);
    CHECK_FALSE(q.rqpn);
    CHECK_FALSE(q.path_mig_state);
    CHECK_FALSE(q.sq_psn);
    CHECK_FALSE(q.rq_psn);
    CHECK_FALSE(q.pdn);
    CHECK_FALSE(q.pid);
    CHECK(q.comm.empty());
    CHECK(q.driver.empty());
}

TEST_CASE("parse_res_qp_message: an empty table gives no QPs")
{
    QpMessage m;
    m.open_table();
    m.close_table();
    std::vector<KernelQp> out;
    parse_res_qp_message(m.nlh, out);
    CHECK(out.empty());
}

TEST_CASE("parse_res_qp_message reads driver attributes as text")
{
    QpMessage m;
    m.open_table();
    nlattr* e = m.open_entry();
    mnl_attr_put_u32(m.nlh, RDMA_NLDEV_ATTR_RES_LQPN, 8);
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_STATE, 1);
    nlattr* drv = mnl_attr_nest_start(m.nlh, RDMA_NLDEV_ATTR_DRIVER);
    // As rdma_nl_put_driver_{u32,u32_hex,string,u64_hex,...} put them.
    mnl_attr_put_strz(m.nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "sq_wqe_cnt");
    mnl_attr_put_u32(m.nlh, RDMA_NLDEV_ATTR_DRIVER_U32, 256);
    mnl_attr_put_strz(m.nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "flags");
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE, RDMA_NLDEV_PRINT_TYPE_HEX);
    mnl_attr_put_u32(m.nlh, RDMA_NLDEV_ATTR_DRIVER_U32, 0x1f);
    mnl_attr_put_strz(m.nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "mode");
    mnl_attr_put_strz(m.nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "fast");
    mnl_attr_put(m.nlh, RDMA_NLDEV_ATTR_PAD, 0, nullptr);  // nla_put_u64_64bit padding
    mnl_attr_put_strz(m.nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "base");
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE, RDMA_NLDEV_PRINT_TYPE_HEX);
    mnl_attr_put_u64(m.nlh, RDMA_NLDEV_ATTR_DRIVER_U64, 0xdead0000beefull);
    mnl_attr_put_strz(m.nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "delta");
    mnl_attr_put_u32(m.nlh, RDMA_NLDEV_ATTR_DRIVER_S32, static_cast<std::uint32_t>(-5));
    mnl_attr_put_strz(m.nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "big");
    mnl_attr_put_u64(m.nlh, RDMA_NLDEV_ATTR_DRIVER_S64, static_cast<std::uint64_t>(-7));
    mnl_attr_put_strz(m.nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "count");
    mnl_attr_put_u64(m.nlh, RDMA_NLDEV_ATTR_DRIVER_U64, 18446744073709551615ull);
    mnl_attr_nest_end(m.nlh, drv);
    m.close_entry(e);
    m.close_table();

    std::vector<KernelQp> out;
    parse_res_qp_message(m.nlh, out);
    REQUIRE(out.size() == 1);
    using KV = std::pair<std::string, std::string>;
    const std::vector<KV> expected{
        {"sq_wqe_cnt", "256"}, {"flags", "0x1f"},  {"mode", "fast"},
        {"base", "0xdead0000beef"}, {"delta", "-5"}, {"big", "-7"},
        {"count", "18446744073709551615"},
    };
    CHECK(out[0].driver == expected);
}

TEST_CASE("parse_res_qp_message skips attributes it does not know")
{
    QpMessage m;
    mnl_attr_put_u64(m.nlh, 90, 1);  // at the top level
    m.open_table();
    mnl_attr_put_u32(m.nlh, 91, 2);  // in the table, not an entry
    nlattr* e = m.open_entry();
    mnl_attr_put_u32(m.nlh, RDMA_NLDEV_ATTR_RES_LQPN, 5);
    mnl_attr_put_strz(m.nlh, 98, "subtype");       // RES_SUBTYPE, newer than our headers
    mnl_attr_put(m.nlh, 1000, 3, "abc");            // beyond any kernel's attribute range
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_TYPE, 0xff);
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_STATE, 6);
    m.close_entry(e);
    m.close_table();

    std::vector<KernelQp> out;
    parse_res_qp_message(m.nlh, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].lqpn == 5);
    CHECK(out[0].type == 0xff);
    CHECK(out[0].state == 6);
}

TEST_CASE("parse_res_qp_message rejects an attribute with the wrong length")
{
    QpMessage m;
    m.open_table();
    nlattr* e = m.open_entry();
    const std::uint16_t two = 7;
    mnl_attr_put(m.nlh, RDMA_NLDEV_ATTR_RES_LQPN, sizeof two, &two);  // a u32 of 2 bytes
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
    m.close_entry(e);
    m.close_table();
    check_rejected(m.nlh, "RDMA_NLDEV_ATTR_RES_LQPN has a 2-byte payload");
}

TEST_CASE("parse_res_qp_message rejects a message cut inside an attribute")
{
    QpMessage m;
    m.open_table();
    m.put_user_rc_entry(1, 2);
    m.put_user_rc_entry(3, 4);
    m.close_table();
    const std::uint32_t full = m.nlh->nlmsg_len;
    // Every cut that is not on the end: the table's length overruns the message.
    for (std::uint32_t cut = full - 1; cut > MNL_NLMSG_HDRLEN; cut -= 5) {
        CAPTURE(cut);
        m.nlh->nlmsg_len = cut;
        check_rejected(m.nlh, "");
    }
    m.nlh->nlmsg_len = MNL_NLMSG_HDRLEN - 1;
    check_rejected(m.nlh, "shorter than its header");
}

TEST_CASE("parse_res_qp_message rejects a nested attribute that overruns its container")
{
    QpMessage m;
    m.open_table();
    nlattr* e = m.open_entry();
    mnl_attr_put_u32(m.nlh, RDMA_NLDEV_ATTR_RES_LQPN, 1);
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
    nlattr* last = static_cast<nlattr*>(mnl_nlmsg_get_payload_tail(m.nlh));
    mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
    m.close_entry(e);
    m.close_table();
    last->nla_len = 64;  // claims more than the entry holds, less than the message
    check_rejected(m.nlh, "QP entry: attribute");
}

TEST_CASE("parse_res_qp_message rejects what the kernel never sends")
{
    SUBCASE("an entry without its QP number")
    {
        QpMessage m;
        m.open_table();
        nlattr* e = m.open_entry();
        mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
        mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
        m.close_entry(e);
        m.close_table();
        check_rejected(m.nlh, "no RDMA_NLDEV_ATTR_RES_LQPN");
    }
    SUBCASE("a message without a table")
    {
        QpMessage m;
        check_rejected(m.nlh, "without RDMA_NLDEV_ATTR_RES_QP");
    }
    SUBCASE("a message without a device name")
    {
        alignas(nlmsghdr) char buf[256]{};
        nlmsghdr* nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
        mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP));
        check_rejected(nlh, "DEV_NAME");
    }
    SUBCASE("another message type")
    {
        QpMessage m;
        m.open_table();
        m.close_table();
        m.nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CQ_GET);
        check_rejected(m.nlh, "message type");
        m.nlh->nlmsg_type = NLMSG_ERROR;
        check_rejected(m.nlh, "message type");
    }
    SUBCASE("a device name without its NUL")
    {
        alignas(nlmsghdr) char buf[256]{};
        nlmsghdr* nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
        mnl_attr_put(nlh, RDMA_NLDEV_ATTR_DEV_NAME, 4, "rxe0");
        check_rejected(nlh, "RDMA_NLDEV_ATTR_DEV_NAME");
    }
    SUBCASE("a driver value without a key, a key without a value")
    {
        for (bool value_first : {true, false}) {
            QpMessage m;
            m.open_table();
            nlattr* e = m.open_entry();
            mnl_attr_put_u32(m.nlh, RDMA_NLDEV_ATTR_RES_LQPN, 1);
            mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
            mnl_attr_put_u8(m.nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
            nlattr* drv = mnl_attr_nest_start(m.nlh, RDMA_NLDEV_ATTR_DRIVER);
            if (value_first)
                mnl_attr_put_u32(m.nlh, RDMA_NLDEV_ATTR_DRIVER_U32, 1);
            else
                mnl_attr_put_strz(m.nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "orphan");
            mnl_attr_nest_end(m.nlh, drv);
            m.close_entry(e);
            m.close_table();
            check_rejected(m.nlh, value_first ? "without a key" : "'orphan' without a value");
        }
    }
    SUBCASE("no message at all")
    {
        check_rejected(nullptr, "no message");
    }
}

TEST_CASE("list_kernel_qps works, or names the call that failed")
{
    // The host running unit tests may have no RDMA stack at all (then
    // socket(NETLINK_RDMA) fails with EPROTONOSUPPORT); the lab checks the rest.
    try {
        const auto qps = list_kernel_qps();
        for (const auto& q : qps)
            CHECK_FALSE(q.dev_name.empty());
    } catch (const qps::SystemError& e) {
        CHECK_MESSAGE(std::string(e.call).find("NETLINK_RDMA") != std::string::npos, e.what());
        if (e.err == EPROTONOSUPPORT || e.err == EPERM)
            CHECK(e.hint == "kernel without RDMA netlink support?");
    }
}

TEST_CASE("per-QP counters: a STAT_GET reply as fill_res_counter_entry() builds it")
{
    alignas(nlmsghdr) char buf[4096]{};
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
    nlattr* table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER);
    nlattr* entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 7);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, 1);  // RDMA_COUNTER_MODE_AUTO
    mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
    nlattr* qps = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
    for (std::uint32_t qpn : {0x11u, 0x12u}) {
        nlattr* q = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, qpn);
        mnl_attr_nest_end(nlh, q);
    }
    mnl_attr_nest_end(nlh, qps);
    nlattr* hw = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
    for (auto [name, value] : {std::pair{"rnr_nak_retry_err", 3ull}, std::pair{"out_of_sequence", 0ull}}) {
        nlattr* h = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
        mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
        mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, value);
        mnl_attr_nest_end(nlh, h);
    }
    mnl_attr_nest_end(nlh, hw);
    mnl_attr_nest_end(nlh, entry);
    mnl_attr_nest_end(nlh, table);

    std::vector<QpCounter> out;
    parse_stat_qp_message(nlh, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].dev_name == "mlx5_0");
    CHECK(out[0].port == 1);
    CHECK(out[0].id == 7);
    CHECK(out[0].mode == 1);
    CHECK(out[0].qpns == std::vector<std::uint32_t>{0x11, 0x12});
    REQUIRE(out[0].values.size() == 2);
    CHECK(out[0].values[0] == std::pair<std::string, std::uint64_t>{"rnr_nak_retry_err", 3});

    // A device with no counter: no table, nothing appended.
    alignas(nlmsghdr) char empty_buf[256]{};
    nlmsghdr* empty = mnl_nlmsg_put_header(empty_buf);
    empty->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
    mnl_attr_put_strz(empty, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
    parse_stat_qp_message(empty, out);
    CHECK(out.size() == 1);
}

TEST_CASE("rdma_cm IDs: a RES_CM_ID_GET reply as fill_res_cm_id_entry() builds it")
{
    alignas(nlmsghdr) char buf[2048]{};
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CM_ID_GET);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
    nlattr* table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_CM_ID);
    nlattr* e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 0x11);
    mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PS, 0x106);
    mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 6);  // RDMA_CM_DISCONNECT
    sockaddr_storage src{}, dst{};
    auto* s4 = reinterpret_cast<sockaddr_in*>(&src);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(18515);
    s4->sin_addr.s_addr = htonl(0xc0000201);  // 192.0.2.1
    auto* d6 = reinterpret_cast<sockaddr_in6*>(&dst);
    d6->sin6_family = AF_INET6;
    d6->sin6_port = htons(4791);
    d6->sin6_addr.s6_addr[0] = 0xfe;
    d6->sin6_addr.s6_addr[1] = 0x80;
    d6->sin6_addr.s6_addr[15] = 1;
    mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_SRC_ADDR, sizeof src, &src);
    mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_DST_ADDR, sizeof dst, &dst);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 777);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CM_IDN, 3);
    mnl_attr_nest_end(nlh, e);
    mnl_attr_nest_end(nlh, table);

    std::vector<KernelCmId> out;
    parse_res_cm_id_message(nlh, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].dev_name == "rxe0");
    CHECK(out[0].lqpn == 0x11u);
    CHECK(out[0].port_space == 0x106);
    CHECK(cm_state_name(out[0].state) == "DISCONNECT");
    CHECK(out[0].src == "192.0.2.1:18515");
    CHECK(out[0].dst == "[fe80::1]:4791");
    CHECK(out[0].pid == 777u);
    CHECK(out[0].id == 3u);
    CHECK(cm_state_name(5) == "CONNECT");
    CHECK(cm_state_name(8) == "LISTEN");
    CHECK(cm_state_name(99) == "UNKNOWN(0x63)");
}
