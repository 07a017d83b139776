"""integrations/torch/scenario_shapes.py draws a scenario case's sequence lengths as kattn's generator
does: its std::mt19937_64 against the C++ standard's check value, and its lengths against those a
recorded `kattn bench` run reports. Standard library only: runs in ctest."""
import json
import os
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "integrations", "torch"))

import scenario_shapes  # noqa: E402

# A bench run of perf/scenarios/default.json on the H100 (its cases list every sequence's lengths).
BENCH_RUN = os.path.join(ROOT, "perf", "results", "h100-2026-11-23-default.json")
SCENARIO = os.path.join(ROOT, "perf", "scenarios", "default.json")


class ScenarioShapes(unittest.TestCase):
    def test_engine_matches_the_standard(self):
        rng = scenario_shapes.MT19937_64(5489)  # the default seed
        for _ in range(9999):
            rng()
        self.assertEqual(rng(), 9981545732273789042)  # [rand.predef]: the 10000th value

    def test_lengths_match_kattn_bench(self):
        with open(SCENARIO) as f:
            specs = {case["name"]: case for case in json.load(f)["cases"]}
        with open(BENCH_RUN) as f:
            cases = json.load(f)["cases"]
        self.assertEqual(sorted(case["name"] for case in cases), sorted(specs))
        for case in cases:
            with self.subTest(case=case["name"]):
                self.assertEqual(scenario_shapes.sequence_shapes(specs[case["name"]]),
                                 (case["query_lens"], case["seq_lens"]))

    def test_geometry_of_a_model_and_of_explicit_fields(self):
        self.assertEqual(scenario_shapes.geometry({"model": "llama-3-8b"}), (32, 8, 128))
        self.assertEqual(scenario_shapes.geometry({"num_q_heads": 6, "num_kv_heads": 2, "head_size": 32}), (6, 2, 32))


if __name__ == "__main__":
    unittest.main()
