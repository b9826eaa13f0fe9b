#include "src/ops/version.hpp"

#include "src/verbs/library.hpp"

namespace qps::ops {

std::string libibverbs_version()
{
    return verbs::libibverbs_version();
}

}  // namespace qps::ops
