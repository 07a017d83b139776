#include "tools/timing.hpp"

#include "kattn/harness/aligned_view.hpp"

#include <cstdint>
#include <ctime>

namespace kattn::cli {

Work work_of(const HostProblem& p, std::size_t element_bytes, std::size_t cache_bytes) {
  const Geometry& g = p.geometry;
  Work w;
  w.bytes = 2.0 * double(g.q_elements()) * double(element_bytes);
  double pairs = 0.0;
  for (int s = 0; s < g.num_seqs; ++s) {
    const int query_len = p.cu_seqlens_q[std::size_t(s) + 1] - p.cu_seqlens_q[std::size_t(s)];
    const double seq_len = p.seq_lens[std::size_t(s)];
    w.bytes += 2.0 * seq_len * g.num_kv_heads * g.head_size * double(cache_bytes);
    const double context = seq_len - query_len;
    // causal: keys context+1 .. context+query_len; otherwise seq_len each
    pairs += p.params.causal ? query_len * context + 0.5 * query_len * (query_len + 1.0) : query_len * seq_len;
  }
  w.flops = 4.0 * g.head_size * g.num_q_heads * pairs;
  return w;
}

Timing summarize(const std::vector<double>& samples) {
  Timing t;
  for (double s : samples) t.mean_us += s / double(samples.size());
  for (double s : samples) t.stddev_us += (s - t.mean_us) * (s - t.mean_us) / double(samples.size());
  t.stddev_us = std::sqrt(t.stddev_us);
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  t.min_us = sorted.front();
  t.median_us = sorted[sorted.size() / 2];
  t.p90_us = sorted[std::min(sorted.size() - 1, sorted.size() * 9 / 10)];
  return t;
}

std::size_t l2_flush_bytes() { return host_backend() ? 0 : std::size_t(256) << 20; }

namespace {

struct alignas(16) Chunk {
  std::uint32_t word[4];
};

// Each team reads a contiguous run of chunks, its threads a chunk apart; a team writes only when
// its xor hits a value the buffer's bytes cannot make, so the loads cannot be dropped.
struct StreamRead {
  using Member = Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Kokkos::View<const Chunk*, MemorySpace> chunks;
  Kokkos::View<std::uint32_t*, MemorySpace> sink;
  std::size_t per_team;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::size_t first = std::size_t(team.league_rank()) * per_team;
    const std::size_t end = first + per_team < chunks.extent(0) ? first + per_team : chunks.extent(0);
    std::uint32_t x = 0;
    for (std::size_t i = first + team.team_rank(); i < end; i += team.team_size()) {
      const Chunk c = chunks(i);
      x ^= c.word[0] ^ c.word[1] ^ c.word[2] ^ c.word[3];
    }
    if (x == 0x5a5a5a5au) sink(0) = x;
  }
};

}  // namespace

RunTimings time_stream_read(std::size_t bytes, int runs) {
  // 2 GiB at most, read as often as it takes: each pass is far past the L2.
  const std::size_t total = bytes / sizeof(Chunk), held = std::min(total, (std::size_t(2) << 30) / sizeof(Chunk));
  // Aligned as the benchmarked inputs are (harness/aligned_view.hpp); zeros: the sink never fires.
  AlignedStorage<MemorySpace> storage;
  const auto buffer = aligned_view<Kokkos::View<Chunk*, MemorySpace>>(storage, "kattn::stream_read", held);
  Kokkos::deep_copy(buffer, Chunk{});
  const Kokkos::View<std::uint32_t*, MemorySpace> sink("kattn::stream_sink", 1);
  const ExecutionSpace space;
  const int threads = host_backend() ? 1 : 128;
  const auto enqueue = [&] {
    for (std::size_t done = 0; done < total; done += held) {
      const std::size_t chunks = std::min(held, total - done);
      const std::size_t teams = std::min<std::size_t>(host_backend() ? space.concurrency() : 4224, chunks);
      const StreamRead read{Kokkos::subview(buffer, std::pair<std::size_t, std::size_t>(0, chunks)), sink,
                            (chunks + teams - 1) / teams};
      Kokkos::parallel_for("kattn::stream_read", Kokkos::TeamPolicy<ExecutionSpace>(space, int(teams), threads), read);
    }
  };
  return time_enqueued(space, 1, runs, enqueue);
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace kattn::cli
