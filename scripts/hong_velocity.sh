#!/usr/bin/env bash
# Hong et al.'s three-link bar driven by its velocity (Sec. 4 and 5, Fig. 2): runs the test that
# simulates it for 50 s (implicit and Baumgarte, dt = 0.01 and 0.001), copies its four CSVs to
# docs/data/hong_velocity/ and plots them to docs/hong-velocity-constraint.png.
# Needs a release build (scripts/build.sh release). Usage: bash scripts/hong_velocity.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
ninja -C "$build" tests/core_tests tests/hong_plot
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$OLDPWD/$build/tests/core_tests" --gtest_filter='VelocityConstraint.HongThreeLinkBar*')
mkdir -p docs/data/hong_velocity
cp "$work"/hong_velocity/*.csv docs/data/hong_velocity/
"$build/tests/hong_plot" docs/data/hong_velocity docs/hong-velocity-constraint.png
echo "wrote docs/data/hong_velocity/*.csv and docs/hong-velocity-constraint.png"
