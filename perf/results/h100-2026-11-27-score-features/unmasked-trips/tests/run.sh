# Device run 32 (2026-11-27): the commands of ../../tests/run.sh (its output as run32.tgz), on the binaries of 3ed8b2b (the
# unmasked trips): GPU tests, validate, compute-sanitizer memcheck/racecheck/synccheck.
bash perf/results/h100-2026-11-27-score-features/tests/run.sh
