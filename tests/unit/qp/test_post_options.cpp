// `qp post`: its operations, the atomics' operands as typed -> PostRequest,
// and the checks the holder makes before it posts an atomic. Expected
// values are written out from libibverbs' headers and the IB spec (9.4.5:
// 8-byte operands, 8-byte aligned, RC), not recomputed with src/.
#include <cstdint>
#include <doctest/doctest.h>
#include <string>
#include <utility>
#include <vector>

#include "src/error.hpp"
#include "commands/qp/flags.hpp"
#include "commands/spellings.hpp"
#include "src/qp/options.hpp"
#include "src/qp/validate.hpp"
#include "unit/util.hpp"

using namespace qps::qp;
using qps::commands::ModifyFlags;
using qps::commands::PostFlags;
using qps::commands::parse_modify_flags;
using qps::commands::parse_post_flags;
using qps::UsageError;

using qps::test::contains;
using qps::test::thrown;

namespace {

PostFlags flags(std::string op)
{
    PostFlags f;
    f.op = std::move(op);
    return f;
}

std::string refusal(const PostFlags& f)
{
    return thrown<UsageError>([&] { parse_post_flags(f); });
}

// atomic_post_problem's text as `qp post` spells it: each mark of what the
// user gave as the option that gave it (the command layer's table).
std::string problem(const AtomicPostFacts& f)
{
    const auto p = atomic_post_problem(f);
    return p ? UsageError(*p).naming([](qps::Given g) { return std::string(qps::commands::option_for(g)); })
             : std::string("(none)");
}

// An RC QP in RTS on a device with atomics, aiming at a held peer that
// accepts them: nothing to refuse.
AtomicPostFacts fine()
{
    AtomicPostFacts f;
    f.op = PostOp::fadd;
    f.qpn = 0x12;
    f.type = IBV_QPT_RC;
    f.device = "rxe0";
    f.atomic_cap = IBV_ATOMIC_HCA;
    f.state = IBV_QPS_RTS;
    f.max_rd_atomic = 1;
    f.remote_addr = 0x7f0000001000;
    f.target = AtomicPostFacts::Target{0x13, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC, 1};
    return f;
}

}  // namespace

// ----------------------------------------------------------------- operations

TEST_CASE("post ops: words in table order, each with its work request opcode")
{
    CHECK(post_op_words() == std::vector<std::string>{"send", "write", "read", "fadd", "cas"});
    CHECK(post_wr_opcode(PostOp::send) == IBV_WR_SEND);
    CHECK(post_wr_opcode(PostOp::write) == IBV_WR_RDMA_WRITE);
    CHECK(post_wr_opcode(PostOp::read) == IBV_WR_RDMA_READ);
    CHECK(post_wr_opcode(PostOp::fadd) == IBV_WR_ATOMIC_FETCH_AND_ADD);
    CHECK(post_wr_opcode(PostOp::cas) == IBV_WR_ATOMIC_CMP_AND_SWP);
    CHECK(post_op_name(PostOp::cas) == "cas");
    CHECK(parse_post_op("FADD") == PostOp::fadd);
    CHECK(is_atomic(PostOp::fadd));
    CHECK(is_atomic(PostOp::cas));
    CHECK_FALSE(is_atomic(PostOp::read));
    CHECK(thrown<UsageError>([] { parse_post_op("swap"); }) ==
          "--op 'swap': valid operations are send, write, read, fadd, cas");
}

// ------------------------------------------------------------ parse_post_flags

TEST_CASE("parse_post_flags: send, write and read keep their size and remote buffer")
{
    CHECK(parse_post_flags(flags("send")).size == 64);
    PostFlags f = flags("write");
    f.size = 4096;
    f.raddr = "0x1003";  // unaligned is fine for a write
    f.rkey = "0x1234";
    const PostRequest r = parse_post_flags(f);
    CHECK(r.op == PostOp::write);
    CHECK(r.size == 4096);
    CHECK(r.raddr == 0x1003u);
    CHECK(r.rkey == 0x1234u);
}

TEST_CASE("parse_post_flags: fadd adds 1 by default, --add in decimal or 0x hex, on 8 bytes")
{
    PostRequest r = parse_post_flags(flags("fadd"));
    CHECK(r.op == PostOp::fadd);
    CHECK(r.compare_add == 1);
    CHECK(r.size == 8);
    PostFlags f = flags("fadd");
    f.add = "3";
    CHECK(parse_post_flags(f).compare_add == 3);
    f.add = "0xffffffffffffffff";
    CHECK(parse_post_flags(f).compare_add == UINT64_MAX);
    f.size = 8;  // -s 8 is the operand's size: accepted
    CHECK(parse_post_flags(f).size == 8);
}

TEST_CASE("parse_post_flags: cas takes --compare and --swap, both required")
{
    PostFlags f = flags("cas");
    f.compare = "15";
    f.swap = "0x63";
    const PostRequest r = parse_post_flags(f);
    CHECK(r.op == PostOp::cas);
    CHECK(r.compare_add == 15);
    CHECK(r.swap == 99);
    CHECK(r.size == 8);

    PostFlags no_compare = flags("cas");
    no_compare.swap = "7";
    CHECK(refusal(no_compare) == "--op cas needs both --compare N and --swap N (missing: --compare)");
    PostFlags no_swap = flags("cas");
    no_swap.compare = "7";
    CHECK(refusal(no_swap) == "--op cas needs both --compare N and --swap N (missing: --swap)");
    CHECK(refusal(flags("cas")) == "--op cas needs both --compare N and --swap N (missing: --compare, --swap)");
}

TEST_CASE("parse_post_flags: operands of another operation are refused, not ignored")
{
    PostFlags f = flags("write");
    f.add = "3";
    CHECK(refusal(f) == "--add 3: --add is the addend of --op fadd, not of --op write");
    PostFlags g = flags("fadd");
    g.compare = "1";
    CHECK(refusal(g) == "--compare 1: --compare is an operand of --op cas, not of --op fadd");
    PostFlags h = flags("send");
    h.swap = "2";
    CHECK(refusal(h) == "--swap 2: --swap is an operand of --op cas, not of --op send");
    PostFlags i = flags("cas");
    i.compare = "1";
    i.swap = "2";
    i.add = "3";
    CHECK(contains(refusal(i), "--add is the addend of --op fadd, not of --op cas"));
}

TEST_CASE("parse_post_flags: bad numbers name the option and the valid range")
{
    PostFlags f = flags("fadd");
    f.add = "-1";
    CHECK(refusal(f) == "--add '-1': expected a whole number in 0..18446744073709551615 (decimal or 0x hex)");
    PostFlags g = flags("cas");
    g.compare = "0x1g";
    g.swap = "1";
    CHECK(contains(refusal(g), "--compare '0x1g'"));
    PostFlags h = flags("cas");
    h.compare = "1";
    h.swap = "0x10000000000000000";  // 65 bits
    CHECK(contains(refusal(h), "--swap '0x10000000000000000'"));
}

TEST_CASE("parse_post_flags: an atomic is 8 bytes")
{
    PostFlags f = flags("fadd");
    f.size = 64;
    CHECK(refusal(f) == "-s 64: --op fadd works on one 8-byte operand (give -s 8, or leave -s out)");
    PostFlags g = flags("cas");
    g.compare = "0";
    g.swap = "1";
    g.size = 4;
    CHECK(contains(refusal(g), "-s 4: --op cas works on one 8-byte operand"));
}

TEST_CASE("parse_post_flags: an atomic's remote address is 8-byte aligned; --raddr and --rkey go together")
{
    PostFlags f = flags("fadd");
    f.raddr = "0x1003";
    f.rkey = "0x10";
    CHECK(refusal(f) == "--raddr 0x1003: an atomic's target must be 8-byte aligned (e.g. 0x1000 or 0x1008)");
    f.raddr = "0x1008";
    const PostRequest r = parse_post_flags(f);
    CHECK(r.raddr == 0x1008u);
    CHECK(r.rkey == 0x10u);
    f.raddr = "4100";  // 0x1004: aligned to 4 only
    CHECK(contains(refusal(f), "--raddr 4100: an atomic's target must be 8-byte aligned"));

    PostFlags alone = flags("read");
    alone.raddr = "0x1000";
    CHECK(contains(refusal(alone), "--raddr 0x1000: give --raddr and --rkey together"));
    PostFlags key_alone = flags("cas");
    key_alone.compare = "1";
    key_alone.swap = "2";
    key_alone.rkey = "5";
    CHECK(contains(refusal(key_alone), "--rkey 5: give --raddr and --rkey together"));
}

// ---------------------------------------------------------- atomic_post_problem

TEST_CASE("atomic_post_problem: none for an RC QP in RTS aiming at a QP that accepts atomics")
{
    CHECK_FALSE(atomic_post_problem(fine()).has_value());
    AtomicPostFacts elsewhere = fine();  // the target is not held here: its own side checks
    elsewhere.target.reset();
    CHECK_FALSE(atomic_post_problem(elsewhere).has_value());
    AtomicPostFacts glob = fine();
    glob.atomic_cap = IBV_ATOMIC_GLOB;
    CHECK_FALSE(atomic_post_problem(glob).has_value());
}

TEST_CASE("atomic_post_problem: RC only, the type named")
{
    AtomicPostFacts f = fine();
    f.type = IBV_QPT_UD;
    CHECK(problem(f) == "--op fadd: QP 0x12 is UD; atomics run on RC QPs only (qp create --transport rc)");
    f.type = IBV_QPT_UC;
    f.op = PostOp::cas;
    CHECK(problem(f) == "--op cas: QP 0x12 is UC; atomics run on RC QPs only (qp create --transport rc)");
}

TEST_CASE("atomic_post_problem: a device without atomics is named with its atomic_cap")
{
    AtomicPostFacts f = fine();
    f.atomic_cap = IBV_ATOMIC_NONE;
    CHECK(problem(f) ==
          "--op fadd: rxe0 does no atomics (atomic_cap NONE): run it on a device whose 'qpscope ports' shows atomics");
}

TEST_CASE("atomic_post_problem: rd-atomic depths on both ends")
{
    AtomicPostFacts f = fine();
    f.max_rd_atomic = 0;
    CHECK(problem(f) == "--op fadd: QP 0x12 has max_rd_atomic 0, so it can have no atomic in flight: give it 1 or "
                        "more on its way to RTS (qp modify --max-rd-atomic)");
    f.state = IBV_QPS_INIT;  // before RTS the depth is not set yet: the post itself is refused
    CHECK_FALSE(atomic_post_problem(f).has_value());

    AtomicPostFacts g = fine();
    g.target->max_dest_rd_atomic = 0;
    CHECK(problem(g) == "--op fadd: the target QP 0x13 has max_dest_rd_atomic 0, so it accepts no atomic: give it 1 "
                        "or more on its way to RTR (qp modify --max-dest-rd-atomic)");
}

TEST_CASE("atomic_post_problem: the target QP needs remote_atomic access, the fix spelled out")
{
    AtomicPostFacts f = fine();
    f.target->access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    CHECK(problem(f) ==
          "--op fadd: the target QP 0x13 was not given remote_atomic access (its access: "
          "local_write,remote_write,remote_read): give it --access "
          "local_write,remote_write,remote_read,remote_atomic (qp create or qp modify)");
    f.target->access = 0;
    CHECK(contains(problem(f), "(its access: none): give it --access remote_atomic"));
}

TEST_CASE("atomic_post_problem: the remote address must be 8-byte aligned")
{
    AtomicPostFacts f = fine();
    f.remote_addr = 0x1003;
    CHECK(problem(f) == "--raddr 0x1003: an atomic's target must be 8-byte aligned");
}

// ------------------------------------------------------------ --recv, --count

TEST_CASE("post --recv: receives of the whole buffer, --count of them; a send's operands refused by name")
{
    PostFlags f;
    f.recv = true;
    f.count = 4;
    const PostRequest r = parse_post_flags(f);
    CHECK(r.recv);
    CHECK(r.count == 4u);
    CHECK(parse_post_flags([] {
              PostFlags g;
              g.recv = true;
              return g;
          }()).count == 1u);  // no --count: one

    PostFlags sized = f;
    sized.size = 64;
    CHECK(contains(refusal(sized), "--recv posts receives of the QP's whole buffer: -s belongs to a send"));
    PostFlags write = f;
    write.op = "write";
    CHECK(contains(refusal(write), ": --op belongs to a send, write, read or atomic"));
    PostFlags keyed = f;
    keyed.rkey = "0x10";
    CHECK(contains(refusal(keyed), ": --rkey belongs"));
}

TEST_CASE("post --count: sends keep their operands; no --recv")
{
    PostFlags f = flags("send");
    f.count = 64;
    f.size = 128;
    const PostRequest r = parse_post_flags(f);
    CHECK(!r.recv);
    CHECK(r.count == 64u);
    CHECK(r.size == 128u);
    CHECK(r.op == PostOp::send);
}
