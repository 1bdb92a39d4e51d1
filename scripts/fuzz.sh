#!/usr/bin/env bash
# Fuzzes the whole path a scene file takes (tests/fuzz/scene_fuzzer.cpp: parse, validate,
# compile, check, a few steps of each integrator and solver) with libFuzzer under AddressSanitizer
# and UBSan.
#   bash scripts/fuzz.sh [seconds=600] [workers=nproc]
#   bash scripts/fuzz.sh coverage     line coverage of core/ reached by the corpus so far (llvm-cov)
# Corpus: build/fuzz/corpus (seeded from resources/examples, tests/fuzz/seeds and tests/data/fuzz-regressions,
# kept between runs); crashers, timeouts and out-of-memory inputs: build/fuzz/findings/. Turn each
# finding into a regression case: fix it, then copy the file to tests/data/fuzz-regressions/
# (the normal suite loads every file there: tests/core/fuzz_regression_test.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = coverage ]; then
  bash scripts/deps.sh fuzz
  bash scripts/build.sh fuzz-coverage --target scene_fuzzer
  out=build/fuzz-coverage
  rm -f "$out"/*.profraw
  LLVM_PROFILE_FILE="$out/run-%p.profraw" "$out/tests/fuzz/scene_fuzzer" -runs=0 build/fuzz/corpus >/dev/null 2>&1
  llvm-profdata merge -sparse "$out"/*.profraw -o "$out/corpus.profdata"
  llvm-cov report "$out/tests/fuzz/scene_fuzzer" -instr-profile="$out/corpus.profdata" \
    -ignore-filename-regex='(/usr/|tests/)' | tail -n 40
  exit 0
fi
seconds="${1:-600}"
workers="${2:-$(nproc)}"
bash scripts/deps.sh fuzz
bash scripts/build.sh fuzz --target scene_fuzzer
out=build/fuzz
mkdir -p "$out/corpus" "$out/findings"
# seeds: the examples, scenes from the robustness corpus that between them hold every shape,
# constraint type, force, path kind and event action (tests/fuzz/seeds/), and the findings so far
cp -n resources/examples/*.json tests/fuzz/seeds/*.json tests/data/fuzz-regressions/* "$out/corpus/" 2>/dev/null || true
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# -timeout: one input may take at most 20 s (a hang is a finding); -rss_limit_mb: a scene that
# needs more memory than this is a finding too; -max_len: the largest example is ~40 kB
"$out/tests/fuzz/scene_fuzzer" "$out/corpus" \
  -dict=tests/fuzz/scene.dict -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 \
  -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/findings/" \
  -fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 2>&1 | tee "$out/fuzz.log"
echo "findings: $(ls "$out/findings" | wc -l) in $out/findings/"
