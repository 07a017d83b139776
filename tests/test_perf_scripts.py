"""The pure-Python parts of the performance suite's scripts (perf/): shape grouping and padded work of
the PyTorch baseline, the JSON merge, the summary, the scenario file being up to date, and the
stall table of an Nsight Compute source page. Standard
library only (no PyTorch, no matplotlib): runs in ctest."""
import io
import json
import os
import sys
import tempfile
import unittest
import warnings
from contextlib import redirect_stdout

PERF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "perf")
sys.path.insert(0, PERF)

import compare_plans  # noqa: E402
import ncu_stalls  # noqa: E402
import plot_simulation  # noqa: E402
import suite_json  # noqa: E402
import suite_scenarios  # noqa: E402
import summarize_suite  # noqa: E402
import torch_sdpa  # noqa: E402

SPEC_OFF = {"min_seq_len": 1, "max_seq_len": 40, "decode_share": 0.4, "chunked_prefill": True, **torch_sdpa.FEATURES_OFF}


def fake_case(name, query_lens, seq_lens, dtype="fp16", **spec):
    """A case as kattn bench writes it, with its work counted as bench.cpp's work_of does."""
    heads, kv_heads, head_size, element = 32, 8, 128, 2
    pairs = sum(q * (s - q) + q * (q + 1) / 2 for q, s in zip(query_lens, seq_lens))
    return {"name": name, "dtype": dtype, "num_q_heads": heads, "num_kv_heads": kv_heads, "head_size": head_size,
            "causal": True, "query_lens": query_lens, "seq_lens": seq_lens,
            "bytes": 2.0 * sum(query_lens) * heads * head_size * element + 2.0 * sum(seq_lens) * kv_heads * head_size * element,
            "flops": 4.0 * head_size * heads * pairs, "spec": {**SPEC_OFF, **spec}}


def fake_doc():
    cases = [fake_case("mixed", [1, 1, 5, 3, 2], [10, 20, 5, 3, 40]),
             fake_case("decode", [1, 1], [64, 64], decode_share=1.0, chunked_prefill=False, min_seq_len=64,
                       max_seq_len=64)]
    results = [{"case": "mixed", "dtype": "fp16", "variant": "qblock", "forced": False, "mean_us": 100.0,
                "bandwidth_share": 0.1, "peak_share": 0.2},
               {"case": "decode", "dtype": "fp16", "variant": "qblock", "forced": False, "mean_us": 50.0,
                "bandwidth_share": 0.4, "peak_share": None},
               {"case": "decode", "dtype": "fp16", "variant": "segmented", "forced": True, "mean_us": 40.0,
                "bandwidth_share": 0.5, "peak_share": None}]
    return {"schema": "kattn-bench", "schema_version": 2, "device": "test device", "backend": "OpenMP", "arch": "cpu",
            "date": "2026-11-23", "commit": "abc", "warmup": 20, "runs": 100,
            "hardware": {"copy_gb_per_s": 100.0, "peak_tflop_per_s": {"fp16": 10.0, "bf16": None}},
            "cases": cases, "results": results}


class NcuStalls(unittest.TestCase):
    def test_breakdown_and_lines_of_a_source_page(self):
        page = ('==PROF== a line before the table\n'
                '"Address","Source","Instructions Executed","Warp Stall Sampling (All Samples)","stall_wait","stall_mio"\n'
                '"0x7f00000c6b00","HGMMA.64x128x16.F32 R24","100","90","30","60"\n'
                '"0x7f00000c6b10","FMNMX R1, R2, R3","100","10","10","0"\n')
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "sass.csv")
            with open(path, "w") as f:
                f.write(page)
            out = io.StringIO()
            with redirect_stdout(out):
                ncu_stalls.main(path)
        text = out.getvalue()
        self.assertIn("stall_mio                     60.0%", text)
        self.assertIn("stall_wait                    40.0%", text)
        self.assertIn("90.00% c6b00       100  HGMMA.64x128x16.F32 R24", text)
        self.assertIn("mio:67 wait:33", text)


class PhaseGroups(unittest.TestCase):
    def test_one_padded_call_per_kind_of_row(self):
        groups = torch_sdpa.phase_groups(fake_doc()["cases"][0])
        self.assertEqual(groups, [torch_sdpa.Group("decode", 2, 1, 20), torch_sdpa.Group("prefill", 2, 5, 5),
                                  torch_sdpa.Group("chunk", 1, 2, 40)])

    def test_equal_shapes_cost_what_kattn_counts(self):
        case = fake_doc()["cases"][1]
        self.assertEqual(torch_sdpa.padded_work(case, torch_sdpa.phase_groups(case)), (case["bytes"], case["flops"]))

    def test_padding_costs_more(self):
        case = fake_doc()["cases"][0]
        padded_bytes, padded_flops = torch_sdpa.padded_work(case, torch_sdpa.phase_groups(case))
        self.assertGreater(padded_bytes, case["bytes"])
        self.assertGreater(padded_flops, case["flops"])


class Unsupported(unittest.TestCase):
    def test_features_sdpa_cannot_express(self):
        self.assertIsNone(torch_sdpa.unsupported_reason(fake_case("c", [1], [9])))
        reason = torch_sdpa.unsupported_reason(fake_case("c", [1], [9], window_left=1023, fp8_kv_cache=True))
        self.assertIn("window_left", reason)
        self.assertIn("fp8_kv_cache", reason)

    def test_refusal_keeps_the_specific_warning(self):
        caught = [warnings.WarningMessage("Flash attention kernel not used because:", UserWarning, "f", 1),
                  warnings.WarningMessage("Flash attention does not support the is_causal flag when seqlen_q != "
                                          "seqlen_k. (Triggered internally at sdp_utils.cpp:457.)", UserWarning, "f", 1)]
        reason = torch_sdpa.refusal_reason(RuntimeError("No available kernel."), caught)
        self.assertEqual(reason, "Flash attention does not support the is_causal flag when seqlen_q != seqlen_k.")
        self.assertEqual(torch_sdpa.refusal_reason(RuntimeError("boom"), []), "RuntimeError: boom")


class SuiteJson(unittest.TestCase):
    def test_merge_replaces_the_same_backend_only(self):
        doc = fake_doc()
        suite_json.merge_baselines(doc, [{"backend": "torch-flash", "results": []},
                                         {"backend": "torch-cudnn", "results": []}])
        suite_json.merge_baselines(doc, [{"backend": "torch-flash", "results": [{"case": "decode", "mean_us": 1.0}]}])
        self.assertEqual([b["backend"] for b in doc["baselines"]], ["torch-cudnn", "torch-flash"])
        self.assertEqual(doc["baselines"][1]["results"][0]["mean_us"], 1.0)

    def test_save_and_load(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "suite.json")
            suite_json.save(fake_doc(), path)
            self.assertEqual(suite_json.load(path), fake_doc())
            self.assertEqual(os.listdir(folder), ["suite.json"])
            with open(path, "w") as f:
                json.dump({"schema": "kattn-bench", "results": []}, f)  # an old bench file: no shapes
            with self.assertRaises(ValueError):
                suite_json.load(path)

    def test_shares(self):
        doc = fake_doc()
        self.assertEqual(suite_json.shares(doc, "fp16", 1e6, 1e7, 100.0), (0.1, 0.01))  # 10 GB/s, 0.1 TFLOP/s
        self.assertEqual(suite_json.shares(doc, "bf16", 1e6, 1e7, 100.0), (0.1, None))
        self.assertEqual(suite_json.limit_share({"bandwidth_share": 0.1, "peak_share": 0.3}), 0.3)
        self.assertEqual(suite_json.limit_share({"bandwidth_share": 0.1, "peak_share": None}), 0.1)
        self.assertIsNone(suite_json.limit_share({"mean_us": None}))

    def test_implementations(self):
        doc = suite_json.merge_baselines(fake_doc(), [{"backend": "torch-flash", "results": [
            {"case": "mixed", "mean_us": 80.0}, {"case": "decode", "mean_us": None, "error": "refused"}]}])
        impls = suite_json.implementations(doc)
        self.assertEqual(sorted(impls), ["kattn", "kattn segmented", "torch-flash"])
        self.assertEqual(sorted(impls["torch-flash"]), ["mixed"])
        self.assertEqual(impls["kattn segmented"]["decode"]["mean_us"], 40.0)

    def test_time_us_is_kernel_time_on_both_sides(self):
        self.assertEqual(suite_json.time_us({"mean_us": 90.0, "kernel_mean_us": 60.0}), 60.0)  # kattn or a baseline
        self.assertEqual(suite_json.time_us({"mean_us": 90.0}), 90.0)  # an older file: the host time

    def test_classification(self):
        mixed, decode = fake_doc()["cases"]
        self.assertEqual((suite_json.is_grid(mixed), suite_json.is_grid(decode)), (False, True))
        self.assertEqual((suite_json.pattern(mixed), suite_json.pattern(decode)), ("rand", "fixed"))
        self.assertEqual(suite_json.batch_tokens(decode), 128)


class Summary(unittest.TestCase):
    def test_speed_up_and_limit_share(self):
        doc = suite_json.merge_baselines(fake_doc(), [{"backend": "torch-flash", "results": [
            {"case": "mixed", "mean_us": 200.0}, {"case": "decode", "mean_us": 25.0}]}])
        rows = summarize_suite.summary_rows(doc)
        self.assertEqual([(dtype, group, count) for dtype, group, count, *_ in rows],
                         [("fp16", "decode 100%", 1), ("fp16", "serving", 1)])
        self.assertEqual(rows[0][3], [0.4])
        self.assertEqual(rows[0][4], {"torch-flash": [0.5]})
        self.assertEqual(rows[1][4], {"torch-flash": [2.0]})


class ComparePlans(unittest.TestCase):
    def test_speed_up_per_group(self):
        tuned = fake_doc()
        untuned = fake_doc()
        untuned["untuned"] = True
        for row in untuned["results"]:
            row["mean_us"] *= 2.0 if row["case"] == "decode" else 0.5
        rows = compare_plans.comparison_rows(tuned, untuned)
        self.assertEqual([(dtype, group) for dtype, group, _ in rows], [("fp16", "decode 100%"), ("fp16", "serving")])
        self.assertEqual(rows[0][2], [2.0])  # the planned row only; the forced one is left out
        self.assertEqual(rows[1][2], [0.5])

    def test_cases_only_one_run_has_are_left_out(self):
        untuned = fake_doc()
        untuned["results"] = [r for r in untuned["results"] if r["case"] != "mixed"]
        self.assertEqual(len(compare_plans.comparison_rows(fake_doc(), untuned)), 1)


class SuiteScenarios(unittest.TestCase):
    def test_checked_in_file_is_what_the_script_writes(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "suite.json")
            suite_scenarios.write(path)
            with open(path) as written, open(os.path.join(PERF, "scenarios", "suite.json")) as checked_in:
                self.assertEqual(written.read(), checked_in.read(),
                                 "perf/scenarios/suite.json is stale: run python3 perf/suite_scenarios.py")

    def test_grid(self):
        cases = suite_scenarios.scenario()["cases"]
        names = [c["name"] for c in cases]
        self.assertEqual(len(names), len(set(names)))
        for c in cases:
            prefill_rows = c["batch_size"] - suite_scenarios.decodes_of(c["decode_share"], c["batch_size"])
            if not c.get("chunked_prefill"):
                self.assertLessEqual(prefill_rows * c["max_seq_len"], suite_scenarios.MAX_PREFILL_TOKENS, c["name"])
        self.assertIn("d100-b1-128k-fixed", names)
        self.assertIn("d100-b128-16k-rand", names)
        self.assertNotIn("d0-b128-16k-fixed", names)


def fake_simulation():
    """A kattn simulate report of one request with three tokens, as simulate_report.cpp writes it."""
    steps = [{"attention_us": 3000.0, "other_us": 1000.0}, {"attention_us": 500.0, "other_us": 1000.0},
             {"attention_us": 600.0, "other_us": 1000.0}]
    tokens = [{"time_s": 0.005, "step": 0, "attention_us": 3000.0}, {"time_s": 0.0065, "step": 1, "attention_us": 500.0},
              {"time_s": 0.0081, "step": 2, "attention_us": 600.0}]
    return {"schema": "kattn-simulation", "attention_layers": 32, "source": "latency experiment", "timer": "t",
            "model": {"name": "m"}, "steps": steps,
            "requests": [{"id": 4, "arrival_s": 0.001, "tokens": tokens}]}


class PlotSimulation(unittest.TestCase):
    def test_series_per_output_token(self):
        indices, latency, attention = plot_simulation.token_series(fake_simulation())
        self.assertEqual(indices, [0, 1, 2])
        for got, want in zip(latency, [4.0, 1.5, 1.6]):  # the first is the TTFT
            self.assertAlmostEqual(got, want)
        self.assertEqual(attention, [3.0, 0.5, 0.6])
        self.assertEqual(plot_simulation.token_series(fake_simulation(), 4)[0], indices)

    def test_latency_curve_and_labels(self):
        lengths, latency = plot_simulation.latency_curve(fake_simulation())
        self.assertEqual(lengths, [1, 2, 3])
        for got, want in zip(latency, [0.004, 0.0055, 0.0071]):  # token times after the arrival
            self.assertAlmostEqual(got, want)
        self.assertEqual(plot_simulation.label_of(fake_simulation()), "planned")
        replayed = dict(fake_simulation(), timer="kattn::attention on Cuda, variant split_kv; decode-only ...",
                        graph_replay={"steps": 2})
        self.assertEqual(plot_simulation.label_of(replayed), "split_kv + graph replay")

    def test_plot_writes_a_png(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed")
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "figure9.png")
            plot_simulation.plot([fake_simulation(), fake_simulation()], path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
