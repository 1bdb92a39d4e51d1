#!/usr/bin/env bash
# Command 2 of the README: install what is missing, build, and run the whole test suite:
#  1. the release build: every test (examples over their full 10 s; the GUI tests in Xvfb), but
#     for the labels "soak" (every example for 10 minutes simulated with each integrator) and
#     "robustness" (the 375-scene corpus in four configurations, tests/robustness/README.md): run
#     those with `ctest --preset release -L soak` / `-L robustness`;
#  2. the AddressSanitizer + UBSan build: every test again (examples shortened to 1 s: there
#     the point is memory and UB);
#  3. the ThreadSanitizer build of the desktop app: the GUI tests, where the solver thread runs
#     beside the UI (core is single-threaded), but for the fuzz findings' one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh

jobs="$(nproc)"
bash scripts/build.sh release
ctest --preset release -LE 'soak|robustness' -j "$jobs"

bash scripts/build.sh asan
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
TETHER_EXAMPLE_SECONDS=1 ctest --preset asan -LE 'soak|robustness' -j "$jobs"

bash scripts/build.sh tsan --target gui_tests tether
# (not the fuzz findings' test: it is about input, which the release and ASan builds cover, and
# takes 160 s here)
TETHER_HAMMER_ROUNDS=400 ctest --preset tsan -R '^gui\.' -E 'gui\.fuzzFindingsOpenSafely' -j "$jobs"
