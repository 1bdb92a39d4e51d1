#!/usr/bin/env bash
# Command 2 of the README: install what is missing, build, and run the whole test suite:
#  1. the release build: every test (examples over their full 10 s; the GUI tests in Xvfb), but
#     for the labels "soak" (every example for 10 minutes simulated with each integrator) and
#     "robustness" (the 375-scene corpus in four configurations, tests/robustness/README.md): run
#     those with `ctest --preset release -L soak` / `-L robustness`;
#  2. the AddressSanitizer + UBSan build of the core, the CLI and their tests (examples shortened
#     to 1 s: there the point is memory and UB); `bash scripts/build.sh asan` builds the GUI too;
#  3. the ThreadSanitizer build of the desktop app: the GUI tests where threads meet (the solver
#     thread beside the UI: gui_tests, with the hammer; the re-simulation and export workers:
#     export_tests; the plots reading the history while it grows: plot_dock_tests); the others
#     run in the release build only (core is single-threaded).
# Sanitizer builds compile everything again: each stage is chosen to keep the whole run well under
# 20 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh

jobs="$(nproc)"
bash scripts/build.sh release
ctest --preset release -LE 'soak|robustness' -j "$jobs"

bash scripts/build.sh asan-core
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
TETHER_EXAMPLE_SECONDS=1 ctest --preset asan-core -LE 'soak|robustness' -j "$jobs"

tsan_tests=(gui_tests export_tests plot_dock_tests)
bash scripts/build.sh tsan --target tether "${tsan_tests[@]}"
# (not the fuzz findings' test: it is about input, which the release build and the ASan core tests cover, and
# takes 160 s here)
TETHER_HAMMER_ROUNDS=400 ctest --preset tsan -L "^($(IFS='|'; echo "${tsan_tests[*]}"))\$" \
  -E 'gui\.fuzzFindingsOpenSafely' -j "$jobs"
