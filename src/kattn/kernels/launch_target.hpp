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

  template <class Functor>
  void operator()(const char* name, const TeamPolicy& policy, const Functor& functor) const {
    Kokkos::parallel_for(name, light_weight(policy), functor);
  }
};

struct GraphLaunches {
  ExecutionSpace space;
  Kokkos::Experimental::GraphNodeRef<ExecutionSpace> last;  // the node the next launch follows

  // A graph node's functor is stored by the graph (on CUDA, in device memory): the light-weight
  // hint of eager launches has nothing to avoid here.
  template <class Functor>
  void operator()(const char* name, const TeamPolicy& policy, const Functor& functor) {
    last = last.then_parallel_for(name, policy, functor);
  }
};

}  // namespace kattn
