#include "kattn/harness/run_problem.hpp"

#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/problem/validate.hpp"

namespace kattn {

ProblemRun run_problem(const HostProblem& problem, const AttentionOptions& options) {
  validate(problem);  // before any allocation, so bad sizes cannot overrun an upload
  return dispatch_storage(problem.dtype, problem.kv_dtype(), problem.out_dtype(), [&](auto q, auto cache, auto out) {
    using Device = DeviceProblem<decltype(q), decltype(cache), decltype(out)>;
    const Device device = upload_problem<decltype(q), decltype(cache), decltype(out)>(problem);
    ProblemRun run;
    run.plan = attention(device.inputs, device.params, device.out, options);
    run.out = download_out(device.out);
    return run;
  });
}

}  // namespace kattn
