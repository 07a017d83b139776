// kattn::attention on any backend of this build (core/backends.hpp: Serial and OpenMP on a host
// build, Serial and Cuda on the H100's): the same checks, batch metadata, plan and launches as the
// public attention(), on `space`'s instance and in `workspace`, for inputs in its memory. The
// public entry points are this one on the default ExecutionSpace; the others serve the
// per-backend kernel tests (harness/run_problem.hpp). Options' space and workspace are ignored.
#pragma once

#include "kattn/problem/attention_inputs.hpp"
#include "kattn/problem/attention_params.hpp"
#include "kattn/tuning/launch_plan.hpp"
#include "kattn/workspace.hpp"

namespace kattn {

template <class Space, class Q, class Cache, class Out>
LaunchPlan attention_on(const Space& space, const AttentionInputs<Q, Cache, typename Space::memory_space>& inputs,
                        const AttentionParams& params, const AttentionOutput<Out, typename Space::memory_space>& out,
                        BasicWorkspace<Space>& workspace, const AttentionOptions& options = {});

}  // namespace kattn
