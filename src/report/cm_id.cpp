#include "src/report/cm_id.hpp"

#include "src/decode/cm_state.hpp"

namespace qps::report {

CmIdReport cm_id_report(const kernel::KernelCmId& c, const ConsumerObjects& objects)
{
    CmIdReport r;
    if (!c.dev_name.empty())
        r.device = c.dev_name;
    if (c.port != 0)
        r.port = c.port;
    r.id = c.id;
    r.state = decode::cm_state(c.state);
    r.phase = std::string(decode::cm_phase(c.state));
    r.port_space = decode::cm_port_space(c.port_space);
    if (!c.src.empty())
        r.local = c.src;
    if (!c.dst.empty())
        r.remote = c.dst;
    r.qpn = c.lqpn;
    r.pid = c.pid;
    r.comm = c.comm;
    if (!c.pid)
        r.serves = served_by(c.comm, c.dst, objects);
    return r;
}

}  // namespace qps::report
