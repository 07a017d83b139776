// Where the kernels of a call go. EagerLaunches runs each on an execution-space instance as it
// comes; GraphLaunches appends it, after the previous one, to a Kokkos graph being captured
// (paper 6.2), whose replays run the same kernels with the same arguments. Both branch: a call's
// independent parts run at once. The launch code
// (part_launch.hpp) is written once against both, and for every backend: Space is the target's;
// a policy may carry its kernel's traits (launch bounds).
#pragma once

#include "kattn/core/execution_space.hpp"
#include "kattn/core/graph_launch_bounds.hpp"
#include "kattn/core/stream_instance.hpp"
#include "kattn/core/team_scratch_cap.hpp"

#include <Kokkos_Graph.hpp>

namespace kattn {

template <class Space>
struct EagerLaunches {
  using execution_space = Space;
  static constexpr bool kEager = true;  // each launch runs once, after the call before (PublishedMaps)
  Space space;

  // A target for launches that may run beside the ones that follow on this one (on `side`'s
  // instance, after what this one enqueued so far); join() makes this one wait for them.
  EagerLaunches branch(const SideInstance<Space>& side) const { return {side.fork(space)}; }
  void join(const EagerLaunches&, const SideInstance<Space>& side) const { side.join(space); }

  template <class Functor, class... Traits>
  void operator()(const char* name, const Kokkos::TeamPolicy<Space, Traits...>& policy, const Functor& functor) const {
    const auto launch = light_weight(policy);
    allow_team_scratch(launch, functor);
    Kokkos::parallel_for(name, launch, functor);
  }
  // The teams of such a launch that run at once (team_scratch_cap.hpp; 0: not known).
  template <class Functor, class... Traits>
  int resident_teams(const Kokkos::TeamPolicy<Space, Traits...>& policy, const Functor& functor) const {
    return kattn::resident_teams(light_weight(policy), functor);
  }
};

template <class Space>
struct GraphLaunches {
  using execution_space = Space;
  static constexpr bool kEager = false;
  Space space;
  Kokkos::Experimental::GraphNodeRef<Space> last;  // the node the next launch follows

  // A graph node's functor is stored by the graph (on CUDA, in device memory): the light-weight
  // hint of eager launches has nothing to avoid here.
  template <class Functor, class... Traits>
  void operator()(const char* name, const Kokkos::TeamPolicy<Space, Traits...>& policy, const Functor& functor) {
    allow_team_scratch_in_graph(policy, functor);
    last = last.then_parallel_for(name, policy, functor);
  }
  template <class Functor, class... Traits>
  int resident_teams(const Kokkos::TeamPolicy<Space, Traits...>& policy, const Functor& functor) const {
    return kattn::resident_teams(policy, functor);
  }

  // A branch of the graph from the same node: its launches and those that follow here are
  // independent nodes, which the graph may run at once, until join().
  GraphLaunches branch(const SideInstance<Space>&) const { return *this; }
  void join(const GraphLaunches& branch, const SideInstance<Space>&) {
    last = Kokkos::Experimental::when_all(last, branch.last);
  }
};

}  // namespace kattn
