#!/usr/bin/env bash
# Command 1 of the README: install what is missing, build, and open Tether on a bundled example.
# With a display ($DISPLAY set) the app opens in a window. Without one (a bare server) it runs in
# Xvfb for a few seconds, plays the example and saves a screenshot, then prints the headless
# runner's summary of the same scene.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh release
scene="${1:-resources/examples/compound_pendulum.json}"
if [ -n "${DISPLAY:-}" ]; then
  exec ./build/release/app/tether "$scene"
fi
echo "tether: no display; running the app in Xvfb (screenshot: build/run-screenshot.png)"
xvfb-run -a -s "-screen 0 1600x1000x24" \
  ./build/release/app/tether --play --screenshot build/run-screenshot.png --seconds 4 "$scene"
./build/release/app/tether-cli run "$scene"
