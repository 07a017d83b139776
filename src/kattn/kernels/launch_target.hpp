// Where the kernels of a call go. EagerLaunches runs each on an execution-space instance as it
// comes; GraphLaunches appends it, after the previous one, to a Kokkos graph being captured
// (paper 6.2), whose replays run the same kernels with the same arguments. The launch code
// (part_launch.hpp) is written once against both.
#pragma once

#include "kattn/core/execution_space.hpp"

#include <Kokkos_Graph.hpp>

namespace kattn {

struct EagerLaunches {
  ExecutionSpace space;

  template <class Policy, class Functor>
  void operator()(const char* name, const Policy& policy, const Functor& functor) const {
    Kokkos::parallel_for(name, light_weight(policy), functor);
  }
};

struct GraphLaunches {
  ExecutionSpace space;
  Kokkos::Experimental::GraphNodeRef<ExecutionSpace> last;  // the node the next launch follows

  // A graph node's functor is stored by the graph (on CUDA, in device memory): the light-weight
  // hint of eager launches has nothing to avoid here.
  // Kokkos 4.6 cannot make a CUDA graph node of a policy with launch bounds (an ambiguous
  // overload in its launch code): a node takes the plain policy of the same shape.
  template <class Policy, class Functor>
  void operator()(const char* name, const Policy& policy, const Functor& functor) {
    TeamPolicy plain(policy.space(), policy.league_size(), policy.team_size(), policy.impl_vector_length());
    plain.set_scratch_size(0, Kokkos::PerTeam(policy.scratch_size(0)));
    last = last.then_parallel_for(name, plain, functor);
  }
};

}  // namespace kattn
