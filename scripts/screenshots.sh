#!/usr/bin/env bash
# Refreshes docs/screenshots/: each bundled example played for a few seconds in the app under
# Xvfb (1280 x 800, the window's default size) and saved by `tether --play --screenshot`. The
# plot dock's is the one the GUI test gui.energiesScreenshot saves (tests/gui/plot_dock_test.cpp).
# Needs the release build (bash scripts/build.sh release).
set -euo pipefail
cd "$(dirname "$0")/.."
app=./build/release/app/tether
for scene in resources/examples/*.json; do
  name="$(basename "$scene" .json)"
  echo "tether: docs/screenshots/$name.png"
  xvfb-run -a -s "-screen 0 1280x800x24" "$app" --play --screenshot "docs/screenshots/$name.png" --seconds 3 "$scene"
done
ctest --test-dir build/release -R '^gui\.energiesScreenshot$' --output-on-failure
cp build/release/tests/plot_dock.png docs/screenshots/plot_dock.png
