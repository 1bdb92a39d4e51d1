#!/usr/bin/env bash
# Command 1 of the README: install what is missing, build, and run Tether on a bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh release
scene="${1:-resources/examples/compound_pendulum.json}"
./build/release/app/tether-cli run "$scene"
