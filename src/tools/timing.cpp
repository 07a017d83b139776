#include "tools/timing.hpp"

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

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace kattn::cli
