#include "kattn/kernels/run_problem.hpp"

#include "kattn/attention.hpp"
#include "kattn/kernels/device_problem.hpp"
#include "kattn/problem/validate.hpp"

namespace kattn {

ProblemRun run_problem(const HostProblem& problem, const AttentionOptions& options) {
  validate(problem);  // before any allocation, so bad sizes cannot overrun an upload
  return dispatch_storage(problem.dtype, problem.kv_dtype(), problem.out_dtype(), [&](auto q, auto cache, auto out) {
    using Device = DeviceProblem<decltype(q), decltype(cache), decltype(out)>;
    const Device device = upload_problem<decltype(q), decltype(cache), decltype(out)>(problem);
    ProblemRun run;
    run.plan = attention(device.inputs, device.params, device.out, options);
    const auto host_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device.out);
    run.out.resize(std::size_t(problem.geometry.q_elements()));
    for (std::size_t i = 0; i < run.out.size(); ++i) run.out[i] = to_float(host_out.data()[i]);
    return run;
  });
}

}  // namespace kattn
