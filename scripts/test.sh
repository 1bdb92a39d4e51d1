#!/usr/bin/env bash
# Command 2 of the README: install what is missing, build, and run the whole test suite:
#  1. the release build: every test (examples over their full 10 s; the GUI tests in Xvfb), but
#     for the labels "soak" (every example for 10 minutes simulated with each integrator) and
#     "robustness" (the 375-scene corpus in four configurations, tests/robustness/README.md): run
#     those with `ctest --preset release -L soak` / `-L robustness`;
#  2. the AddressSanitizer + UBSan build of the core, the CLI and their tests (examples and the
#     minute-long runs that read TETHER_EXAMPLE_SECONDS shortened to 1 s: there the point is memory
#     and UB; the stack of ten boxes' minute took 348 s there); `bash scripts/build.sh asan` builds the GUI too;
#  3. the ThreadSanitizer build of the desktop app: the GUI tests where threads meet (the solver
#     thread beside the UI: gui_tests, with the hammer; the re-simulation and export workers:
#     export_tests; the plots reading the history while it grows: plot_dock_tests); the others
#     run in the release build only (core is single-threaded).
# Sanitizer builds compile everything again: each stage is chosen to keep the whole run well under
# 20 minutes on 2 cores. Every stage builds ui/ and render/ in unity batches (CMakeLists.txt: TETHER_UNITY_BUILD, kept in
# the build's cache: `cmake --preset release -DTETHER_UNITY_BUILD=OFF` to edit file by file again);
# the sanitizer stages compile with clang (scripts/deps.sh test), which is 1.7x faster there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test

jobs="$(nproc)"
tsan_tests=(gui_tests export_tests plot_dock_tests)

# Each sanitizer build compiles while the stage before it tests: the tests leave about a third of
# the cores idle (GUI tests wait for windows and events). The build runs niced, in the background,
# with its output in build/<preset>.log (shown if it fails), so that the tests keep their pace.
background=""
trap '[ -z "$background" ] || kill -- "-$background" 2>/dev/null || true' EXIT  # the build's whole process group
build_in_background() {
  local preset="$1"
  shift
  mkdir -p build
  setsid nice -n 10 bash scripts/build.sh "$preset" -DTETHER_UNITY_BUILD=ON "$@" > "build/$preset.log" 2>&1 &
  background=$!
}
wait_for_build() {
  if ! wait "$background"; then
    cat "build/$1.log"
    echo "tether: the $1 build failed" >&2
    exit 1
  fi
  background=""
}

bash scripts/build.sh release -DTETHER_UNITY_BUILD=ON
build_in_background asan-core
ctest --preset release -LE 'soak|robustness' -j "$jobs"

wait_for_build asan-core
build_in_background tsan --target tether "${tsan_tests[@]}"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
TETHER_EXAMPLE_SECONDS=1 ctest --preset asan-core -LE 'soak|robustness' -j "$jobs"

wait_for_build tsan
# Not here:
#  - the fuzz findings' test: it is about input, which the release build and the ASan core tests
#    cover (160 s here);
#  - the status bar's slower-than-real-time test: a 4 000-link chain, so that the release build
#    falls behind (211 s here); what it shares with the solver thread, play and speed, the hammer
#    drives 400 times;
#  - the three video exports through ffmpeg: clang 14's TSan runtime aborts in the child of
#    QProcess::start ("CHECK failed: tsan_rtl.cpp:234" in ForkAfter, before ffmpeg runs). The
#    exporter talks to ffmpeg on the UI thread only; its thread-crossing part, the frames it asks
#    the solver thread for, is the same without ffmpeg (exportVideoWithoutFfmpegWritesPngs runs here).
skip='fuzzFindingsOpenSafely|statusSaysWhenTheModelRunsSlowerThanRealTime'
skip+='|exportVideoMp4|exportVideoWebmOddSize|cancelVideoExportLeavesNothing'
TETHER_HAMMER_ROUNDS=400 ctest --preset tsan -L "^($(IFS='|'; echo "${tsan_tests[*]}"))\$" \
  -E "^gui\\.($skip)\$" -j "$jobs"
