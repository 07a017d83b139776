// Warpgroup-scope roles of a warp-specialized team on Hopper (sm_90a), FlashAttention-3's layout:
// a producer warpgroup copies K and V tiles into rings of scratch buffers while consumer
// warpgroups compute on them, each side waiting only on the buffer it needs next (mbarrier), and
// the register file is moved from the producer to the consumers (setmaxnreg).
//
// TileRings<KSlots, VSlots, QSlots>: a ring of K buffers, one of V buffers and one of Q buffers
// (the Q rows of a work item, QSlots 0: none), each buffer with two
// mbarriers: `full` (its copies have landed: `producers` arrivals a phase, e.g. one a box of the
// tensor memory accelerator expecting its bytes (TeamBulkTileCopy::copy_block), or the same
// arrivals after a warp's cp.async copies, each lane holding the phase open for its own until
// they land: pipeline_hold_for_copies) and `empty` (every consumer warp has read
// it: one arrival a warp, from one lane, after the products that read it completed; for a Q
// buffer, which the consumers' own loads and stores touch, one arrival a thread, each releasing
// its own accesses: compute-sanitizer's racecheck does not take a warp barrier and one lane's
// arrival for the other lanes').
// The n-th tile of a ring (n counted alike by both sides across the team's items) goes into slot
// n mod Slots and completes phase n / Slots of its barriers: consumers wait for `full` with that
// phase's parity, the producer for `empty` with the parity before it, which a fresh barrier passes
// (slots start empty).
//
// Contract: init by one thread, then a team barrier before any other use; afterwards no team
// barrier (the roles run their own loops): a consumer warpgroup syncs its own warps with
// warpgroup_barrier. A consumer that reads a filled buffer through the tensor cores calls
// warpgroup_tile_ready() after its wait (the copies are the generic proxy's writes).
// warpgroup_registers<N>() moves a whole warpgroup to N registers a thread (a multiple of 8, 24
// to 256): the kernel must be compiled with a known register count at entry (launch bounds with a
// minimum of one block an SM, Kokkos::LaunchBounds<threads, 1>), and the team's warpgroups may
// together ask for no more than the register file (65,536) at once. Barriers are 8-byte words of
// team scratch. On other targets the bodies are empty: the planner takes these kernels on sm_90a only.
#pragma once

#include <Kokkos_Core.hpp>

namespace kattn {

// The barrier at shared address `barrier` expects `count` arrivals a phase.
KOKKOS_INLINE_FUNCTION void pipeline_init(unsigned barrier, int count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier), "r"(count) : "memory");
#else
  (void)barrier, (void)count;
#endif
}

// After the barriers' init, before the team barrier that publishes them: the inits are visible to
// the copy engine's (async proxy's) arrivals too.
KOKKOS_INLINE_FUNCTION void pipeline_init_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// Returns once the phase of parity `parity` of the barrier has completed. The spin is one asm
// statement, as CUTLASS's barrier waits are: no branch of the caller's code for the warpgroup
// products that follow to reconverge after.
// Each try suspends the thread until the phase completes or up to kSuspendNs pass (CUTLASS's
// hint), so that a waiting warp does not take issue slots from the others by spinning.
KOKKOS_INLINE_FUNCTION void pipeline_wait(unsigned barrier, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr unsigned kSuspendNs = 0x989680;
  asm volatile(
      "{\n.reg .pred done;\nkattn_wait:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1, %2;\n@!done bra "
      "kattn_wait;\n}\n" ::"r"(barrier),
      "r"(parity), "r"(kSuspendNs)
      : "memory");
#else
  (void)barrier, (void)parity;
#endif
}

// One arrival on the barrier where `arrive` (one lane of a warp, say), releasing this thread's
// earlier accesses; predicated, not branched around.
KOKKOS_INLINE_FUNCTION void pipeline_arrive(unsigned barrier, bool arrive) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %1, 0;\n@p mbarrier.arrive.shared::cta.b64 _, [%0];\n}\n" ::"r"(barrier),
      "r"(int(arrive))
      : "memory");
#else
  (void)barrier, (void)arrive;
#endif
}

// One arrival on the barrier once every cp.async copy this thread has issued so far has landed
// (the thread goes on at once); the barrier's count includes it (.noinc).
KOKKOS_INLINE_FUNCTION void pipeline_arrive_on_copies(unsigned barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(barrier) : "memory");
#else
  (void)barrier;
#endif
}

// Holds the barrier's current phase open until every cp.async copy this thread has issued so far
// has landed (the thread goes on at once): its pending count is raised now and lowered as they
// land, so the phase still completes on the arrivals it counts.
KOKKOS_INLINE_FUNCTION void pipeline_hold_for_copies(unsigned barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" ::"r"(barrier) : "memory");
#else
  (void)barrier;
#endif
}

// One arrival on the barrier that also expects `bytes` more of copies that complete on it (the
// tensor memory accelerator's, complete_tx) before its phase can complete.
KOKKOS_INLINE_FUNCTION void pipeline_arrive_expecting(unsigned barrier, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(bytes) : "memory");
#else
  (void)barrier, (void)bytes;
#endif
}

// Sets this warpgroup's registers a thread to Registers (more: .inc, which waits until the
// register file has them; fewer: .dec). Every thread of the warpgroup calls it together.
template <int Registers, bool More>
KOKKOS_INLINE_FUNCTION void warpgroup_registers() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256, "setmaxnreg's range");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (More)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Registers));
  else
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Registers));
#endif
}

// Ends the calling thread's role in a warp-specialized team for good: it leaves the kernel rather
// than return into the loop over league ranks that Kokkos' CUDA TeamPolicy runs around the functor
// (a block a rank: the loop runs once). With setmaxnreg inside that loop ptxas serializes every
// wgmma of the kernel (C7512; on the producer probe of 2026-11-28 the loop's back edge, deleted from
// the PTX, took it away). Traps where a block would have to run another rank (a grid sized
// otherwise) rather than leave that rank undone. A producer thread may hold cp.async copies in
// flight (its last Q rows, a last partial tile) whose barrier phase the rows still wait on: it
// waits for them before it leaves, so that no copy outlives the thread that issued it.
KOKKOS_INLINE_FUNCTION void warpgroup_role_exit(int league_size) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (int(gridDim.x) < league_size) __trap();
  asm volatile("cp.async.wait_all;" ::: "memory");
  asm volatile("exit;" ::: "memory");
#else
  (void)league_size;
#endif
}

// A barrier of the 128 threads of one warpgroup: named barrier `id` (1 or 2 for the rows, 5 for the
// producer; Kokkos' team barrier is 0, WarpgroupTurns' 3 and 4), every thread of that warpgroup and no other calls it with the same id.
KOKKOS_INLINE_FUNCTION void warpgroup_barrier(int id) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory");
#else
  (void)id;
#endif
}

// Turns of the two warpgroups of rows (FlashAttention-3's ping-pong): each issues its tensor-core
// products only in its turn and passes the turn on right after, so that one's softmax runs while
// the other's products hold the tensor cores. Named barriers 3 and 4 of both warpgroups' 256
// threads: warpgroup g waits at 3 + g, the other arrives there. start() gives warpgroup 0 the
// first turn; every thread of both calls it once, then wait() and pass() around each issue,
// equally often in both (the last pass is left pending at the kernel's end).
struct WarpgroupTurns {
  int warpgroup;  // 0 or 1 among the warpgroups of rows

  KOKKOS_INLINE_FUNCTION void start() const {
    if (warpgroup == 1) arrive(3);
  }
  KOKKOS_INLINE_FUNCTION void wait() const { sync(3 + warpgroup); }
  KOKKOS_INLINE_FUNCTION void pass() const { arrive(4 - warpgroup); }

 private:
  KOKKOS_INLINE_FUNCTION static void sync(int id) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("bar.sync %0, 256;" ::"r"(id) : "memory");
#else
    (void)id;
#endif
  }
  KOKKOS_INLINE_FUNCTION static void arrive(int id) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("bar.arrive %0, 256;" ::"r"(id) : "memory");
#else
    (void)id;
#endif
  }
};

template <int KSlots, int VSlots, int QSlots = 0>
struct TileRings {
  static constexpr int kBarriers = 2 * (KSlots + VSlots + QSlots);
  static constexpr int kBytes = 8 * kBarriers;

  unsigned base;  // shared address of the barriers: K full, K empty, V full, V empty, Q full, Q empty, a slot each

  KOKKOS_INLINE_FUNCTION static int k_slot(int n) { return n % KSlots; }
  KOKKOS_INLINE_FUNCTION static int v_slot(int n) { return n % VSlots; }
  KOKKOS_INLINE_FUNCTION static int q_slot(int n) { return n % QSlots; }

  // One thread: `producers` arrivals fill each K or V tile and `consumers` (a lane a warp) free it;
  // `q_producers` fill each Q buffer and `q_consumers` free it.
  KOKKOS_INLINE_FUNCTION void init(int producers, int consumers, int q_producers = 1, int q_consumers = 1) const {
    for (int s = 0; s < KSlots; ++s) {
      pipeline_init(k_full(s), producers);
      pipeline_init(k_empty(s), consumers);
    }
    for (int s = 0; s < VSlots; ++s) {
      pipeline_init(v_full(s), producers);
      pipeline_init(v_empty(s), consumers);
    }
    for (int s = 0; s < QSlots; ++s) {
      pipeline_init(q_full(s), q_producers);
      pipeline_init(q_empty(s), q_consumers);
    }
    pipeline_init_fence();
  }

  // Producer: wait until K (V, Q) buffer n's slot is free; the `full` barrier its copies arrive on.
  KOKKOS_INLINE_FUNCTION void wait_k_free(int n) const { pipeline_wait(k_empty(k_slot(n)), parity(n, KSlots) ^ 1u); }
  KOKKOS_INLINE_FUNCTION void wait_v_free(int n) const { pipeline_wait(v_empty(v_slot(n)), parity(n, VSlots) ^ 1u); }
  KOKKOS_INLINE_FUNCTION void wait_q_free(int n) const { pipeline_wait(q_empty(q_slot(n)), parity(n, QSlots) ^ 1u); }
  KOKKOS_INLINE_FUNCTION unsigned k_full_barrier(int n) const { return k_full(k_slot(n)); }
  KOKKOS_INLINE_FUNCTION unsigned v_full_barrier(int n) const { return v_full(v_slot(n)); }
  KOKKOS_INLINE_FUNCTION unsigned q_full_barrier(int n) const { return q_full(q_slot(n)); }

  // Consumer: wait until K (V, Q) buffer n is in; after the products that read it completed, free
  // it (`arrive`: one lane a warp for K and V; every thread for Q, whose own loads and stores
  // touch the buffer).
  KOKKOS_INLINE_FUNCTION void wait_k_full(int n) const { pipeline_wait(k_full(k_slot(n)), parity(n, KSlots)); }
  KOKKOS_INLINE_FUNCTION void wait_v_full(int n) const { pipeline_wait(v_full(v_slot(n)), parity(n, VSlots)); }
  KOKKOS_INLINE_FUNCTION void wait_q_full(int n) const { pipeline_wait(q_full(q_slot(n)), parity(n, QSlots)); }
  KOKKOS_INLINE_FUNCTION void k_read(int n, bool arrive) const { pipeline_arrive(k_empty(k_slot(n)), arrive); }
  KOKKOS_INLINE_FUNCTION void v_read(int n, bool arrive) const { pipeline_arrive(v_empty(v_slot(n)), arrive); }
  KOKKOS_INLINE_FUNCTION void q_read(int n, bool arrive) const { pipeline_arrive(q_empty(q_slot(n)), arrive); }

 private:
  KOKKOS_INLINE_FUNCTION static unsigned parity(int n, int slots) { return unsigned(n / slots) & 1u; }
  KOKKOS_INLINE_FUNCTION unsigned at(int word) const { return base + 8u * unsigned(word); }
  KOKKOS_INLINE_FUNCTION unsigned k_full(int s) const { return at(s); }
  KOKKOS_INLINE_FUNCTION unsigned k_empty(int s) const { return at(KSlots + s); }
  KOKKOS_INLINE_FUNCTION unsigned v_full(int s) const { return at(2 * KSlots + s); }
  KOKKOS_INLINE_FUNCTION unsigned v_empty(int s) const { return at(2 * KSlots + VSlots + s); }
  KOKKOS_INLINE_FUNCTION unsigned q_full(int s) const { return at(2 * (KSlots + VSlots) + s); }
  KOKKOS_INLINE_FUNCTION unsigned q_empty(int s) const { return at(2 * (KSlots + VSlots) + QSlots + s); }
};

}  // namespace kattn
