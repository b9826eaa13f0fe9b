#include "src/report/kernel_qp.hpp"

#include "src/decode/qp.hpp"

namespace qps::report {

KernelQpReport kernel_qp_report(const kernel::KernelQp& q, bool held)
{
    KernelQpReport r;
    r.device = q.dev_name;
    if (q.port != 0)
        r.port = q.port;
    r.qpn = q.lqpn;
    r.type = decode::kernel_qp_type(q.type);
    r.state = decode::qp_state(q.state);
    r.dest_qpn = q.rqpn;
    r.sq_psn = q.sq_psn;
    r.rq_psn = q.rq_psn;
    r.pdn = q.pdn;
    r.pid = q.pid;
    if (q.path_mig_state)
        r.mig_state = decode::mig_state(*q.path_mig_state);
    r.comm = q.comm;
    r.driver = q.driver;
    r.held = held;
    return r;
}

}  // namespace qps::report
