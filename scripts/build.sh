#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release) with all cores.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
cmake --preset "$preset" >/dev/null
# further arguments: --target ... (default: everything)
cmake --build --preset "$preset" -j "$(nproc)" "$@"
