#include "kattn/simulation/trace.hpp"

#include "kattn/core/error.hpp"
#include "kattn/io/json_fields.hpp"
#include "kattn/io/json_file.hpp"
#include "kattn/workload/random.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

namespace kattn::sim {
namespace {

// (0, 1]
double open_unit_random(std::mt19937_64& rng) { return 1.0 - unit_random(rng); }

constexpr double kPi = 3.14159265358979323846;

// A standard normal value (Box-Muller with both draws explicit).
double standard_normal(std::mt19937_64& rng) {
  const double u = open_unit_random(rng);
  const double v = unit_random(rng);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * kPi * v);
}

int draw_length(const LengthDistribution& d, std::mt19937_64& rng) {
  if (d.kind == LengthDistribution::Kind::uniform) return uniform_int(rng, d.min, d.max);
  const double value = std::round(d.median * std::exp(d.sigma * standard_normal(rng)));
  return int(std::clamp(value, double(d.min), double(d.max)));
}

void check(const LengthDistribution& d, const char* what) {
  if (d.min < 1 || d.max < d.min) throw std::invalid_argument(std::string(what) + " lengths need 1 <= min <= max");
  if (d.kind == LengthDistribution::Kind::lognormal && (!(d.median > 0.0) || !(d.sigma >= 0.0)))
    throw std::invalid_argument(std::string(what) + " lognormal lengths need median > 0 and sigma >= 0");
}

void sort_by_arrival(std::vector<Request>& requests) {
  std::stable_sort(requests.begin(), requests.end(),
                   [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
}

}  // namespace

std::vector<Request> poisson_trace(const PoissonSpec& spec) {
  if (!(spec.rate_per_s > 0.0) || spec.num_requests < 1)
    throw std::invalid_argument("Poisson arrivals need rate > 0 and at least one request");
  check(spec.prompt, "prompt");
  check(spec.output, "output");
  std::mt19937_64 rng(spec.seed);
  std::vector<Request> requests;
  double clock = 0.0;
  for (int i = 0; i < spec.num_requests; ++i) {
    clock += -std::log(open_unit_random(rng)) / spec.rate_per_s;  // exponential gaps
    Request r;
    r.id = i;
    r.arrival_s = clock;
    r.prompt_len = draw_length(spec.prompt, rng);
    r.output_len = draw_length(spec.output, rng);
    requests.push_back(r);
  }
  return requests;
}

std::vector<Request> latency_experiment_trace(int prompt_len, int output_len) {
  if (prompt_len < 1 || output_len < 1) throw std::invalid_argument("the latency experiment needs lengths >= 1");
  Request r;
  r.prompt_len = prompt_len;
  r.output_len = output_len;
  return {r};
}

std::vector<Request> load_trace(const std::string& path) {
  const nlohmann::json doc = read_json_file(path, "the trace file");
  if (!doc.is_object() || !doc.contains("requests") || !doc["requests"].is_array() || doc["requests"].empty())
    throw FileFormatError(path, "needs a non-empty array \"requests\"");
  std::vector<Request> requests;
  const auto& list = doc["requests"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    using namespace json_fields;
    const std::string where = "requests[" + std::to_string(i) + "]";
    try {
      if (!list[i].is_object()) fail(where, "must be an object (got " + list[i].dump() + ")");
      Request r;
      r.id = field(list[i], where, "id", int(i));
      r.arrival_s = field<double>(list[i], where, "arrival_s");
      require(r.arrival_s >= 0.0, where, "arrival_s", "must be >= 0", r.arrival_s);
      r.prompt_len = field<int>(list[i], where, "prompt_len");
      require(r.prompt_len >= 1, where, "prompt_len", "must be positive", r.prompt_len);
      r.output_len = field<int>(list[i], where, "output_len");
      require(r.output_len >= 1, where, "output_len", "must be positive", r.output_len);
      requests.push_back(r);
    } catch (const std::exception& e) {
      throw FileFormatError(path, e.what());
    }
  }
  sort_by_arrival(requests);
  return requests;
}

void write_trace(const std::string& path, const std::vector<Request>& requests) {
  nlohmann::json list = nlohmann::json::array();
  for (const Request& r : requests)
    list.push_back(
        {{"id", r.id}, {"arrival_s", r.arrival_s}, {"prompt_len", r.prompt_len}, {"output_len", r.output_len}});
  write_json_file(path, nlohmann::json{{"requests", list}}, 1, "the trace file");
}

LengthDistribution parse_length_distribution(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ':');) parts.push_back(part);
  LengthDistribution d;
  try {
    if (parts.size() == 3 && parts[0] == "uniform") {
      d.min = std::stoi(parts[1]);
      d.max = std::stoi(parts[2]);
      return d;
    }
    if (parts.size() == 5 && parts[0] == "lognormal") {
      d.kind = LengthDistribution::Kind::lognormal;
      d.median = std::stod(parts[1]);
      d.sigma = std::stod(parts[2]);
      d.min = std::stoi(parts[3]);
      d.max = std::stoi(parts[4]);
      return d;
    }
  } catch (const std::logic_error&) {
  }
  throw std::invalid_argument("length distribution '" + text +
                              "': expected uniform:MIN:MAX or lognormal:MEDIAN:SIGMA:MIN:MAX");
}

}  // namespace kattn::sim
