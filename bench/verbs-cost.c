/* verbs-cost: what one message costs the provider, driven four ways.
 *
 * Counts, with valgrind --tool=callgrind --toggle-collect=measured, the
 * user-space instructions of one message's work on a Soft-RoCE device
 * (rxe), legacy verbs against extended verbs and against chained receives,
 * to decide HOW qpscope's loops should drive the provider (issue 44).
 * Two RC QPs on the same device are connected to each other (loopback, the
 * RoCE v2 IPv4 GID) and one thread drives both. Variants:
 *   A   send ping-pong as qpscope's loop does it today: ibv_post_send (2 B
 *       SEND, IBV_SEND_INLINE, signalled 1 in 32), wait with
 *       ibv_poll_cq(recv_cq, 1), one ibv_post_recv of one WR a message,
 *       every 32nd message the send CQ reaped (ibv_poll_cq(cq, 4) until
 *       empty). One round trip = QP1 sends, QP2 receives, reposts and
 *       answers, QP1 receives and reposts: two messages' work.
 *   B   A with extended verbs: QPs from ibv_create_qp_ex (SEND_OPS_FLAGS
 *       WITH_SEND), ibv_wr_start/ibv_wr_send/ibv_wr_set_inline_data/
 *       ibv_wr_complete; CQs from ibv_create_cq_ex, waited on with
 *       ibv_start_poll/ibv_end_poll (reaps too: see reap()). Inline sends
 *       need IBV_SEND_INLINE in wr_flags on rxe (see post()).
 *   Bs  only the send side extended (legacy CQs, ibv_poll_cq).
 *   Bp  only the CQs extended (legacy ibv_post_send).
 *   C   A with receives reposted in chains of K=16 WRs, one ibv_post_recv
 *       every 16 messages (the RQ pre-filled to 64).
 *   BC  B with C's chained receives.
 *   Ag, BCg  A and BC with the 2 bytes sent from the registered buffer
 *       (a gather entry: ibv_wr_set_sge), not inline: the kernel copies
 *       them instead (not counted here; perftest's send latency is inline).
 *   Dl  8-byte fetch-and-add, legacy: ibv_post_send(IBV_WR_ATOMIC_FETCH_AND_ADD,
 *       signalled every time) and ibv_poll_cq(send_cq, 1) until it completes.
 *   Dx  the same with ibv_wr_atomic_fetch_add + ibv_wr_set_sge and
 *       ibv_start_poll/ibv_end_poll.
 *   El, Ex  one empty poll (legacy ibv_poll_cq, ex ibv_start_poll) N times:
 *       the cost of one busy-wait iteration, to take the spins out.
 * Only the function `measured` (the N messages, after a warm-up of 64 with
 * the same code) is collected. The program prints "spins S" (polls that
 * found nothing while waiting for a completion; reaps not included) and
 * "sym OFFSET NAME" for the provider's entry points it can reach through
 * the verbs function pointers (librxe is stripped: callgrind names its
 * functions by offset from the object's base; these lines name them).
 * Per message is (Ir(N2) - Ir(N1) - c * (S2 - S1)) / (N2 - N1), c from El
 * or Ex: bench/verbs-cost-guest.sh runs it all and reduces the files.
 *
 * Usage: verbs-cost DEVICE VARIANT N   (e.g. rxe0 A 20000; GID: the first
 *        IPv4-mapped one of port 1). Build: cc -O2 -o verbs-cost
 *        bench/verbs-cost.c -libverbs. Run all: bench/verbs-cost [N1 N2].
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIGNAL_EVERY 32
#define CHAIN 16
#define RQ_FILL 64
#define WARMUP 64

static void die(const char *what, int err)
{
    fprintf(stderr, "verbs-cost: %s: %s\n", what, strerror(err));
    exit(1);
}

struct side {
    struct ibv_qp *qp;
    struct ibv_qp_ex *qpx;     /* NULL: legacy posting */
    struct ibv_cq *scq, *rcq;
    struct ibv_cq_ex *scqx, *rcqx; /* NULL: legacy CQs */
    struct ibv_send_wr sig, silent;
    struct ibv_sge ssge;
    struct ibv_recv_wr rwr[CHAIN];
    struct ibv_sge rsge[CHAIN];
    char *sbuf, *rbuf;
    uint32_t lkey;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static char *mem;               /* 4 KiB: per side 1 KiB send, 1 KiB receive; the atomic target */
static uint64_t *atomic_target;
static union ibv_gid gid;
static int gid_index = -1;
static unsigned long spins;
static int ex_send, ex_cq, chained, fadd, gather; /* set-up; the hot path has them as a mask */

static struct ibv_cq *new_cq(struct ibv_cq_ex **x)
{
    if (!ex_cq) {
        struct ibv_cq *cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
        if (!cq)
            die("ibv_create_cq", errno);
        *x = NULL;
        return cq;
    }
    struct ibv_cq_init_attr_ex a = {.cqe = 256, .wc_flags = 0};
    *x = ibv_create_cq_ex(ctx, &a);
    if (!*x)
        die("ibv_create_cq_ex", errno);
    return ibv_cq_ex_to_cq(*x);
}

static void new_side(struct side *s, int index)
{
    s->scq = new_cq(&s->scqx);
    s->rcq = new_cq(&s->rcqx);
    struct ibv_qp_init_attr_ex a = {
        .send_cq = s->scq, .recv_cq = s->rcq, .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = 128, .max_recv_wr = 128, .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = 64},
        .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
    };
    if (ex_send) {
        a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
    }
    s->qp = ibv_create_qp_ex(ctx, &a);
    if (!s->qp)
        die("ibv_create_qp_ex", errno);
    s->qpx = ex_send ? ibv_qp_to_qp_ex(s->qp) : NULL;
    s->sbuf = mem + index * 2048;
    s->rbuf = s->sbuf + 1024;
    s->lkey = mr->lkey;
    s->ssge = (struct ibv_sge){.addr = (uintptr_t)s->sbuf, .length = fadd ? 8 : 2, .lkey = mr->lkey};
    s->silent = (struct ibv_send_wr){.wr_id = 1, .sg_list = &s->ssge, .num_sge = 1};
    if (fadd) {
        s->silent.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        s->silent.wr.atomic.remote_addr = (uintptr_t)atomic_target;
        s->silent.wr.atomic.rkey = mr->rkey;
        s->silent.wr.atomic.compare_add = 1;
        s->silent.send_flags = IBV_SEND_SIGNALED;
        s->sig = s->silent;
    } else {
        s->silent.opcode = IBV_WR_SEND;
        s->silent.send_flags = gather ? 0 : IBV_SEND_INLINE;
        s->sig = s->silent;
        s->sig.send_flags |= IBV_SEND_SIGNALED;
    }
    for (int i = 0; i < CHAIN; ++i) {
        s->rsge[i] = (struct ibv_sge){.addr = (uintptr_t)s->rbuf, .length = 64, .lkey = mr->lkey};
        s->rwr[i] = (struct ibv_recv_wr){.wr_id = 2, .sg_list = &s->rsge[i], .num_sge = 1,
                                         .next = chained && i + 1 < CHAIN ? &s->rwr[i + 1] : NULL};
    }
}

static void connect_to(struct side *s, uint32_t peer)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
                            .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                               IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC};
    int rc = ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    if (rc)
        die("modify to INIT", rc);
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = peer;
    a.rq_psn = 0;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = gid;
    a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.port_num = 1;
    rc = ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (rc)
        die("modify to RTR", rc);
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = 0;
    a.max_rd_atomic = 1;
    rc = ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                      IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
    if (rc)
        die("modify to RTS", rc);
}

/* ---- the hot path: everything below is inlined into `measured` ----
 * The variant's switches come as a constant mask f (one specialised copy
 * of the loop per variant in measured()), so no variant pays for another's
 * tests and the program's own count is that of a loop written for it. */
enum { XS = 1, XC = 2, CH = 4, FA = 8, GA = 16, EM = 32 };

static inline __attribute__((always_inline)) void post(struct side *s, int signalled, int f)
{
    if (f & XS) {
        struct ibv_qp_ex *x = s->qpx;
        ibv_wr_start(x);
        x->wr_id = 1;
        /* rxe (kernel 6.1, rdma-core 44) reads inline data only when the
         * WR's flags say IBV_SEND_INLINE: ibv_wr_set_inline_data alone is
         * taken as a gather list of no entries and the QP stalls. */
        x->wr_flags = (signalled ? IBV_SEND_SIGNALED : 0) | (f & (FA | GA) ? 0 : IBV_SEND_INLINE);
        if (f & FA) {
            ibv_wr_atomic_fetch_add(x, mr->rkey, (uintptr_t)atomic_target, 1);
            ibv_wr_set_sge(x, s->lkey, (uintptr_t)s->sbuf, 8);
        } else {
            ibv_wr_send(x);
            if (f & GA)
                ibv_wr_set_sge(x, s->lkey, (uintptr_t)s->sbuf, 2);
            else
                ibv_wr_set_inline_data(x, s->sbuf, 2);
        }
        int rc = ibv_wr_complete(x);
        if (rc)
            die("ibv_wr_complete", rc);
        return;
    }
    struct ibv_send_wr *bad;
    int rc = ibv_post_send(s->qp, signalled ? &s->sig : &s->silent, &bad);
    if (rc)
        die("ibv_post_send", rc);
}

/* Wait for one completion on cq (cqx when extended); the empty polls are spins. */
static inline __attribute__((always_inline)) void wait_one(struct ibv_cq *cq, struct ibv_cq_ex *cqx, int f)
{
    if (f & XC) {
        struct ibv_poll_cq_attr pa = {0};
        int rc;
        while ((rc = ibv_start_poll(cqx, &pa)) == ENOENT)
            ++spins;
        if (rc)
            die("ibv_start_poll", rc);
        if (cqx->status != IBV_WC_SUCCESS)
            die("completion", EIO);
        ibv_end_poll(cqx);
        return;
    }
    struct ibv_wc wc;
    int n;
    while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
        ++spins;
    if (n < 0 || wc.status != IBV_WC_SUCCESS)
        die("completion", EIO);
}

/* Take the signalled send completions there are, without waiting. */
static inline __attribute__((always_inline)) void reap(struct ibv_cq *cq, struct ibv_cq_ex *cqx, int f)
{
    if (f & XC) {
        /* start/end per completion, no ibv_next_poll: rdma-core's rxe
         * before 55.0 unlocks the CQ and stores the index in next_poll's
         * ENOENT, so the ibv_end_poll the man page asks for after it would
         * advance the consumer index past the producer and unlock twice
         * (fixed in b78b414e0, v55.0, and 5e7aa4102, v59.0: from 59.0 ibv_end_poll is needed). */
        struct ibv_poll_cq_attr pa = {0};
        while (ibv_start_poll(cqx, &pa) == 0) {
            if (cqx->status != IBV_WC_SUCCESS)
                die("send completion", EIO);
            ibv_end_poll(cqx);
        }
        return;
    }
    struct ibv_wc wc[4];
    int n;
    while ((n = ibv_poll_cq(cq, 4, wc)) > 0)
        ;
    if (n < 0)
        die("reap", EIO);
}

static inline __attribute__((always_inline)) void repost(struct side *s, unsigned long i, int f)
{
    struct ibv_recv_wr *bad;
    if ((f & CH) && (i + 1) % CHAIN != 0)
        return;
    int rc = ibv_post_recv(s->qp, &s->rwr[0], &bad);
    if (rc)
        die("ibv_post_recv", rc);
}

static struct side one, two;

/* One half of a round trip: `from` sends message i, `to` receives it. */
static inline __attribute__((always_inline)) void message(struct side *from, struct side *to, unsigned long i, int f)
{
    post(from, i % SIGNAL_EVERY == 0, f);
    wait_one(to->rcq, to->rcqx, f);
    repost(to, i, f);
    if (i % SIGNAL_EVERY == 0)
        reap(to->scq, to->scqx, f);
}

static inline __attribute__((always_inline)) void run(int f, unsigned long first, unsigned long n)
{
    for (unsigned long i = first; i < first + n; ++i) {
        if (f & FA) {
            post(&one, 1, f);
            wait_one(one.scq, one.scqx, f);
        } else if (f & EM) {
            if (f & XC) {
                struct ibv_poll_cq_attr pa = {0};
                if (ibv_start_poll(one.rcqx, &pa) == ENOENT)
                    ++spins;
                else
                    die("empty CQ not empty", EIO);
            } else {
                struct ibv_wc wc;
                if (ibv_poll_cq(one.rcq, 1, &wc) == 0)
                    ++spins;
                else
                    die("empty CQ not empty", EIO);
            }
        } else {
            message(&one, &two, i, f);
            message(&two, &one, i, f);
        }
    }
}

/* Each variant's mask, a constant: run() specialised per case. */
#define VARIANTS(X) X(0) X(XS | XC) X(XS) X(XC) X(CH) X(XS | XC | CH) X(GA) X(XS | XC | CH | GA) \
                    X(FA) X(FA | XS | XC) X(EM) X(EM | XC)
#define CASE(m) case (m): run((m), first, n); break;
static inline __attribute__((always_inline)) void dispatch(int f, unsigned long first, unsigned long n)
{
    switch (f) {
        VARIANTS(CASE)
    default:
        die("variant mask", EINVAL);
    }
}

__attribute__((noinline)) void warmup(int f, unsigned long n) { dispatch(f, 0, n); }
__attribute__((noinline)) void measured(int f, unsigned long n) { dispatch(f, WARMUP, n); }

static void sym(const char *name, void *fn)
{
    Dl_info info;
    if (fn && dladdr(fn, &info) && info.dli_fname)
        printf("sym 0x%016lx %s %s\n", (unsigned long)((char *)fn - (char *)info.dli_fbase), name, info.dli_fname);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: verbs-cost DEVICE A|B|Bs|Bp|C|BC|Ag|BCg|Dl|Dx|El|Ex N\n");
        return 2;
    }
    const char *var = argv[2];
    unsigned long n = strtoul(argv[3], NULL, 10);
    static const struct { const char *name; int mask; } table[] = {
        {"A", 0}, {"B", XS | XC}, {"Bs", XS}, {"Bp", XC}, {"C", CH}, {"BC", XS | XC | CH},
        {"Ag", GA}, {"BCg", XS | XC | CH | GA}, {"Dl", FA}, {"Dx", FA | XS | XC}, {"El", EM}, {"Ex", EM | XC},
    };
    int f = -1;
    for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k)
        if (!strcmp(var, table[k].name))
            f = table[k].mask;
    if (f < 0) {
        fprintf(stderr, "verbs-cost: no variant %s\n", var);
        return 2;
    }
    ex_send = !!(f & XS), ex_cq = !!(f & XC), chained = !!(f & CH), fadd = !!(f & FA), gather = !!(f & GA);

    int count = 0;
    struct ibv_device **list = ibv_get_device_list(&count);
    if (!list)
        die("ibv_get_device_list", errno);
    for (int i = 0; i < count && !ctx; ++i)
        if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
            ctx = ibv_open_device(list[i]);
    ibv_free_device_list(list);
    if (!ctx) {
        fprintf(stderr, "verbs-cost: no device %s\n", argv[1]);
        return 1;
    }
    for (int i = 0; i < 16 && gid_index < 0; ++i) {
        union ibv_gid g;
        static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (ibv_query_gid(ctx, 1, i, &g) == 0 && !memcmp(g.raw, v4, 12))
            gid = g, gid_index = i;
    }
    if (gid_index < 0) {
        fprintf(stderr, "verbs-cost: no IPv4-mapped GID on port 1\n");
        return 1;
    }
    pd = ibv_alloc_pd(ctx);
    if (!pd)
        die("ibv_alloc_pd", errno);
    if (posix_memalign((void **)&mem, 4096, 8192))
        die("posix_memalign", ENOMEM);
    memset(mem, 0, 8192);
    atomic_target = (uint64_t *)(mem + 4096);
    mr = ibv_reg_mr(pd, mem, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
    if (!mr)
        die("ibv_reg_mr", errno);
    new_side(&one, 0);
    new_side(&two, 1);
    connect_to(&one, two.qp->qp_num);
    connect_to(&two, one.qp->qp_num);
    /* Pre-fill the receive queues: RQ_FILL single WRs (C: whole chains). */
    for (struct side *s = &one; s; s = s == &one ? &two : NULL) {
        for (int k = 0; k < RQ_FILL; k += chained ? CHAIN : 1) {
            struct ibv_recv_wr *bad;
            int rc = ibv_post_recv(s->qp, &s->rwr[0], &bad);
            if (rc)
                die("prefill ibv_post_recv", rc);
        }
    }
    warmup(f, WARMUP);
    spins = 0;
    measured(f, n);
    if ((f & FA) && *atomic_target != WARMUP + n) {
        fprintf(stderr, "verbs-cost: the atomic target is %lu, not %lu\n", (unsigned long)*atomic_target, WARMUP + n);
        return 1;
    }
    printf("variant %s n %lu spins %lu gid_index %d\n", var, n, spins, gid_index);
    sym("post_send", (void *)ctx->ops.post_send);
    sym("post_recv", (void *)ctx->ops.post_recv);
    sym("poll_cq", (void *)ctx->ops.poll_cq);
    struct side *s = &one;
    if (s->qpx) {
        sym("wr_start", (void *)s->qpx->wr_start);
        sym("wr_complete", (void *)s->qpx->wr_complete);
        sym("wr_send", (void *)s->qpx->wr_send);
        sym("wr_set_inline_data", (void *)s->qpx->wr_set_inline_data);
        sym("wr_set_sge", (void *)s->qpx->wr_set_sge);
        sym("wr_atomic_fetch_add", (void *)s->qpx->wr_atomic_fetch_add);
    }
    if (s->rcqx) {
        sym("start_poll", (void *)s->rcqx->start_poll);
        sym("next_poll", (void *)s->rcqx->next_poll);
        sym("end_poll", (void *)s->rcqx->end_poll);
    }
    return 0;
}
