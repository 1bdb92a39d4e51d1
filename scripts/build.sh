#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release) with all cores.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
# then -DNAME=VALUE arguments for the configure step (kept in the build's cache), then build
# arguments: --target ... (default: everything)
configure=()
while [ $# -gt 0 ] && [[ "$1" == -D* ]]; do configure+=("$1"); shift; done
cmake --preset "$preset" "${configure[@]}" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" "$@"
