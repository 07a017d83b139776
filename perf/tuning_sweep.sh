#!/usr/bin/env bash
# The launch-plan sweep behind data/tuning/<arch>.json: every case of a scenario file timed over
# a grid of variants and plan fields with `kattn bench`; one JSON file per case group.
#   [KATTN_SWEEP_RUNS="--warmup N --runs M"] perf/tuning_sweep.sh BUILD_DIR SCENARIO OUT_DIR [QUERIES_PER_KV]
# QUERIES_PER_KV (default 4, Llama-3-8B) sets the decode Q block to one token.
set -euo pipefail
build=$1 scenario=$2 out=$3 q_per_kv=${4:-4}
mkdir -p "$out"
kattn="$build/src/kattn"
runs=${KATTN_SWEEP_RUNS:-"--warmup 5 --runs 25"}  # fewer on slow hosts
cases=$(python3 -c "import json,sys; print(' '.join(c['name'] for c in json.load(open(sys.argv[1]))['cases']))" "$scenario")
"$kattn" bench --scenario "$scenario" $runs --json "$out/all-baseline.json" --variant baseline
for name in $cases; do
  case $name in
    decode-*)
      "$kattn" bench --scenario "$scenario" --case "$name" $runs --json "$out/$name-qblock.json" \
        --variant qblock,qblock_static --block-m "$q_per_kv" --tile-size 16,32,64 --team-size 2,4,8
      "$kattn" bench --scenario "$scenario" --case "$name" $runs --json "$out/$name-segmented.json" \
        --variant segmented,segmented_static --block-m "$q_per_kv" --tile-size 16,32,64 --segments 4,16,64 --team-size 4,8
      "$kattn" bench --scenario "$scenario" --case "$name" $runs --json "$out/$name-split-kv.json" \
        --variant split_kv --tile-size 128,256,512,1024 --team-size 4,8 ;;
    *)
      "$kattn" bench --scenario "$scenario" --case "$name" $runs --json "$out/$name-qblock.json" \
        --variant qblock,qblock_static,segmented --block-m 16,32,64,128 --tile-size 32,64 --segments 4 --team-size 4,8 ;;
  esac
done
