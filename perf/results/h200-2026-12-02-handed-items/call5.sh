#!/bin/bash
# Stop 64, call 5 (not run: the CUDA test build outlasted the session): kattn_tests and the Cuda
# backend tests of 4814def (.device/tests/, built here) on the device, with memcheck and racecheck on
# the tensor-maps and claiming tests, as the stop before's call 5 ran them.
bash perf/results/h200-2026-12-01-slots/call5.sh
