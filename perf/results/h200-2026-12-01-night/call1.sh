#!/bin/bash
# Stop 62, call 1: the offsets kernel's ceiling — base (4bf9ccd) against skipoff (the offsets kernel once per
# workspace and batch, the claim counter reset by the last team: a hack, not a form to ship).
set -u
export KATTN_HACK_SKIP_OFFSETS=1
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh base skipoff
