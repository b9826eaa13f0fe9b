// Test-only: creates and destroys QPs in batches, for the lab case that
// watches a host's QPs come and go (tests/lab/cases/16-watch.sh).
//
//   qp_churn DEVICE TOTAL BATCH
//
// Opens DEVICE, then TOTAL times in all creates an RC QP (a PD and one small
// CQ shared by all), BATCH at a time: the batch is created, held until the
// next line on stdin, then destroyed, and the next batch follows. After each
// batch's creation it prints "created K" (K QPs so far), so a case can let
// a watch look at the batch before it goes. At the end it prints "done
// TOTAL" and exits 0. Every failure: one line on stderr naming the step and
// errno's text, exit 1 (after destroying what it made). EOF on stdin
// destroys the batch and ends the run early (exit 0).
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int fail(const char* step, int err)
{
    std::fprintf(stderr, "qp_churn: %s: %s\n", step, std::strerror(err));
    return 1;
}

bool positive(const char* text, long& out)
{
    char* end = nullptr;
    errno = 0;
    out = std::strtol(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && out > 0;
}

}  // namespace

int main(int argc, char** argv)
{
    long total = 0, batch = 0;
    if (argc != 4 || !positive(argv[2], total) || !positive(argv[3], batch)) {
        std::fprintf(stderr, "usage: qp_churn DEVICE TOTAL BATCH (TOTAL and BATCH positive)\n");
        return 2;
    }
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    if (!list)
        return fail("ibv_get_device_list", errno);
    ibv_context* ctx = nullptr;
    for (int i = 0; i < count && !ctx; ++i)
        if (std::string(ibv_get_device_name(list[i])) == argv[1])
            ctx = ibv_open_device(list[i]);
    ibv_free_device_list(list);
    if (!ctx) {
        std::fprintf(stderr, "qp_churn: no device %s to open\n", argv[1]);
        return 1;
    }
    int rc = 0;
    ibv_pd* pd = ibv_alloc_pd(ctx);
    ibv_cq* cq = pd ? ibv_create_cq(ctx, 16, nullptr, nullptr, 0) : nullptr;
    if (!pd)
        rc = fail("ibv_alloc_pd", errno);
    else if (!cq)
        rc = fail("ibv_create_cq", errno);
    std::vector<ibv_qp*> held;
    long made = 0;
    bool more = true;
    while (rc == 0 && more && made < total) {
        for (long i = 0; i < batch && made < total; ++i, ++made) {
            ibv_qp_init_attr attr{};
            attr.send_cq = cq;
            attr.recv_cq = cq;
            attr.qp_type = IBV_QPT_RC;
            attr.cap = {1, 1, 1, 1, 0};
            ibv_qp* qp = ibv_create_qp(pd, &attr);
            if (!qp) {
                rc = fail("ibv_create_qp", errno);
                break;
            }
            held.push_back(qp);
        }
        if (rc == 0) {
            std::printf("created %ld\n", made);
            std::fflush(stdout);
            char line[64];
            more = std::fgets(line, sizeof line, stdin) != nullptr;
        }
        for (ibv_qp* qp : held)
            if (ibv_destroy_qp(qp) != 0 && rc == 0)
                rc = fail("ibv_destroy_qp", errno);
        held.clear();
    }
    if (cq)
        ibv_destroy_cq(cq);
    if (pd)
        ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    if (rc == 0) {
        std::printf("done %ld\n", made);
        std::fflush(stdout);
    }
    return rc;
}
