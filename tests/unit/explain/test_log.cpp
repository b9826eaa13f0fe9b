// explain --log: every pattern's example line attributes what the pattern
// is for, and every line of the corpus (real formats of NCCL, UCX, Open MPI,
// perftest, rdma-core, the kernel, ...) attributes exactly what its
// `expect:` says, in that order; lines with nothing are kept as such.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "src/explain/log.hpp"
#include "unit/util.hpp"

using namespace qps;
using qps::test::contains;

namespace {

struct CorpusEntry {
    std::string source;
    std::string line;
    std::vector<std::string> expect;  // "wc-status=12"; empty: nothing
    int at = 0;                       // line number in the corpus file
};

std::string corpus_trim(std::string s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
        s.pop_back();
    while (!s.empty() && s.front() == ' ')
        s.erase(0, 1);
    return s;
}

std::vector<CorpusEntry> read_corpus()
{
    std::ifstream in(QPSCOPE_TEST_DATA "/explain/log_corpus.txt");
    REQUIRE(in);
    std::vector<CorpusEntry> out;
    std::string source, text;
    for (int at = 1; std::getline(in, text); ++at) {
        if (text.rfind("# source:", 0) == 0)
            source = corpus_trim(text.substr(9));
        else if (text.rfind("line: ", 0) == 0)
            out.push_back({source, text.substr(6), {}, at});
        else if (text.rfind("expect:", 0) == 0) {
            REQUIRE(!out.empty());
            std::string rest = corpus_trim(text.substr(7));
            if (rest == "none")
                continue;
            std::stringstream ss(rest);
            for (std::string item; std::getline(ss, item, ';');)
                out.back().expect.push_back(corpus_trim(item));
        }
    }
    return out;
}

// "wc-status=12" for what was found: the topic and the number for numbered
// topics, the canonical text for GIDs and ports.
std::string corpus_key(const explain::Attribution& a)
{
    const auto& e = a.explanation;
    if (e.topic == "gid" || e.topic == "port" || e.topic == "kernel-event")
        return e.topic + "=" + a.value;
    if (a.pattern == "ucx-vendor-syndrome")
        return "mlx5-vendor-syndrome=" + fmt::format("{:#x}", e.raw);
    if (e.topic == "mlx5-syndrome" || e.topic == "qp-attr-mask")
        return e.topic + "=" + fmt::format("{:#x}", e.raw);
    return e.topic + "=" + std::to_string(e.raw);
}

}  // namespace

TEST_CASE("explain --log: every pattern's example attributes its topic")
{
    for (const auto& p : explain::log_patterns()) {
        const auto found = explain::attribute_line(p.example);
        bool by_this = false;
        for (const auto& a : found)
            by_this = by_this || (a.pattern == p.id && a.explanation.topic == p.topic);
        CHECK_MESSAGE(by_this, p.id, ": ", p.example);
    }
}

TEST_CASE("explain --log: the corpus, line by line")
{
    const auto corpus = read_corpus();
    std::set<std::string> sources;
    std::size_t with_nothing = 0;
    for (const auto& c : corpus) {
        sources.insert(c.source);
        with_nothing += c.expect.empty();
        std::vector<std::string> got;
        for (const auto& a : explain::attribute_line(c.line))
            got.push_back(corpus_key(a));
        std::multiset<std::string> want(c.expect.begin(), c.expect.end()), have(got.begin(), got.end());
        CHECK_MESSAGE(want == have, "corpus line ", c.at, " (", c.source, "): ", c.line, "\n  want: ",
                      fmt::format("{}", fmt::join(c.expect, "; ")), "\n  got:  ", fmt::format("{}", fmt::join(got, "; ")));
    }
    CHECK(corpus.size() >= 20);
    CHECK(sources.size() >= 6);
    CHECK(with_nothing >= 3);
}

TEST_CASE("explain --log: blank lines skipped, unattributed lines kept, counts")
{
    std::istringstream in("NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n\n"
                          "Failed status transport retry counter exceeded (12) for wr_id 1\n");
    const auto r = explain::explain_log(in);
    REQUIRE(r.lines.size() == 2);
    CHECK(r.lines[0].number == 1);
    CHECK(r.lines[0].found.empty());
    CHECK(r.lines[1].number == 3);
    REQUIRE(r.lines[1].found.size() == 1);  // the text and the number are one value
    CHECK(r.lines[1].found[0].explanation.name == "RETRY_EXC_ERR");
    CHECK(r.attributed_lines() == 1);
    CHECK(r.values() == 1);
    CHECK(r.all_decoded());
    // An errno on a line that names the verb is read as that verb's.
    const auto modify = explain::attribute_line("node1:12345:12400 [0] misc/ibvwrap.cc:296 NCCL WARN Call to "
                                                "ibv_modify_qp failed with error Invalid argument");
    REQUIRE(modify.size() == 1);
    CHECK_FALSE(modify[0].explanation.checks.empty());
    CHECK(contains(modify[0].explanation.facts[1].text, "ibv_modify_qp()"));
    std::istringstream bad("NET/IB : Got completion from peer 10.0.0.2<58722> with status=99 opcode=0 len=0\n");
    const auto b = explain::explain_log(bad);
    REQUIRE_FALSE(b.lines[0].found.empty());
    CHECK_FALSE(b.all_decoded());
}

TEST_CASE("explain --log: a line with bytes that are not UTF-8 is named, and it and the others are still read")
{
    std::istringstream in("Failed status transport retry counter exceeded (12) for wr_id 1\n"
                          "host\xFF\xFE: NET/IB : Got completion from peer with status=13 opcode=0\n"
                          "Failed status remote access error (10) for wr_id 2\n");
    const auto r = explain::explain_log(in);
    REQUIRE(r.lines.size() == 3);
    CHECK(r.lines[0].utf8);
    CHECK_FALSE(r.lines[1].utf8);
    CHECK(r.lines[1].text == "host\xFF\xFE: NET/IB : Got completion from peer with status=13 opcode=0");
    CHECK(r.lines[2].utf8);
    CHECK(r.not_utf8_lines() == std::vector<std::size_t>{2});
    CHECK(r.attributed_lines() == 3);
    CHECK(r.lines[2].found.at(0).explanation.name == "REM_ACCESS_ERR");
}

TEST_CASE("explain --log: rdma_cm lines give the event and its status: a reject reason or an errno")
{
    // rping: the status of REJECTED is the reject reason; of the other failures an errno.
    const auto rej = explain::attribute_line("cma event RDMA_CM_EVENT_REJECTED, error 8");
    REQUIRE(rej.size() == 2);
    CHECK(rej[0].explanation.topic == "cm-event");
    CHECK(rej[0].explanation.name == "REJECTED");
    CHECK(rej[1].explanation.topic == "cm-reject");
    CHECK(rej[1].explanation.name == "INVALID_SERVICE_ID");
    CHECK(rej[1].pattern == "cm-event-rejected");
    const auto unreach = explain::attribute_line("cma event RDMA_CM_EVENT_UNREACHABLE, error -110");
    std::set<std::string> topics;
    for (const auto& a : unreach)
        topics.insert(a.explanation.topic + ":" + a.explanation.name);
    CHECK(topics == std::set<std::string>{"cm-event:UNREACHABLE", "errno:ETIMEDOUT"});
    // The kernel's rdma_event_msg() words and the number beside them are one value.
    const auto words = explain::attribute_line("[ 1400.000003] nvme nvme0: rejected (8): status 28 id 00000000b1d2c3e4");
    REQUIRE(words.size() == 2);
    CHECK(words[0].pattern == "kernel-cm-event-words");
    CHECK(words[0].explanation.raw == 8);
    CHECK(words[1].explanation.name == "CONSUMER_DEFINED");
    // iWARP's reject is an errno, not a reason.
    const auto iw = explain::attribute_line("nvme nvme1: Connect rejected: status -111 (refused by remote application).");
    REQUIRE(iw.size() == 2);  // and the line itself: kernel-event nvme-connect-rejected
    CHECK(iw[0].explanation.topic == "errno");
    CHECK(iw[0].explanation.name == "ECONNREFUSED");
    CHECK(iw[1].explanation.topic == "kernel-event");
    CHECK(iw[1].explanation.name == "nvme-connect-rejected");
    // Lustre's names with a space.
    const auto lustre = explain::attribute_line(
        "LNet: 4242:0:(o2iblnd_cb.c:3399:kiblnd_cm_callback()) 10.0.0.2@o2ib: CONNECT ERROR -22 cm_id "
        "00000000c0ffee00 conn 00000000deadbeef state: 1");
    REQUIRE(lustre.size() == 2);
    CHECK(lustre[0].explanation.name == "CONNECT_ERROR");
    CHECK(lustre[0].source == "Lustre o2iblnd");
    CHECK(lustre[1].explanation.name == "EINVAL");
}
