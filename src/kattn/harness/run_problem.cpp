#include "kattn/harness/run_problem.hpp"

#include "kattn/core/backends.hpp"
#include "kattn/detail/launch/attention_on.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/problem/validate.hpp"

namespace kattn {

template <class Space>
ProblemRun run_problem(const HostProblem& problem, const AttentionOptions& options) {
  validate(problem);  // before any allocation, so bad sizes cannot overrun an upload
  return dispatch_storage(problem.dtype, problem.kv_dtype(), problem.out_dtype(), [&](auto q, auto cache, auto out) {
    const auto device = upload_problem<decltype(q), decltype(cache), decltype(out), Space>(problem);
    ProblemRun run;
    run.plan =
        attention_on(Space(), device.inputs, device.params, device.out, BasicWorkspace<Space>::instance(), options);
    run.out = download_out(device.out);
    return run;
  });
}

#define KATTN_INSTANTIATE(Space) template ProblemRun run_problem<Space>(const HostProblem&, const AttentionOptions&);
KATTN_FOR_EACH_BACKEND(KATTN_INSTANTIATE)

}  // namespace kattn
