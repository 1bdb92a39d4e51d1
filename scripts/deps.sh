#!/usr/bin/env bash
# Installs what Tether needs to build and test on Debian 12, and nothing already there.
# Runs as root (apt-get); safe to run again.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libeigen3-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # collision detection (core/collision.cpp): Bullet's collision module, double precision (*-float64)
  libbullet-dev
  # the pile benchmark's peers (tests/bench/pile_bench.cpp; not linked into Tether): Bullet's
  # dynamics (libbullet-dev above) and ODE
  libode-dev
  # the desktop app: Qt 6 Widgets + OpenGL widgets, GLM, libepoxy (GL loader for render/)
  qt6-base-dev libqt6opengl6-dev qt6-qpa-plugins libglm-dev libepoxy-dev libgl-dev
  # the plot dock (Qt Charts: Qt's own chart widget, axes, zoom and series over QGraphicsView)
  # and the tool palette's SVG icons (Qt SVG, loaded through the icon engine plugin)
  qt6-charts-dev qt6-svg-dev libqt6svg6
  # File > Export video encodes the frames to MP4/WebM (the app finds ffmpeg at run time and
  # writes PNG frames without it; the export test needs it)
  ffmpeg
  # GUI tests and screenshots: a real X server with Mesa's software OpenGL
  xvfb xauth libgl1-mesa-dri libglx-mesa0 fonts-dejavu-core
  # the autosave test drives the app in its own process (kill -9, start again) with it
  xdotool
)
# `deps.sh test` (scripts/test.sh: the sanitizer stages) and `deps.sh fuzz` (scripts/fuzz.sh):
# clang with its sanitizer runtimes and libFuzzer. The sanitizer presets compile with clang, not
# g++: 1.7x faster on the core's heaviest file (constraint_solvers.cpp at -O1 with ASan+UBSan:
# 59 s against 102 s; with TSan 24 s against 47 s), and the CI's time is mostly compiling.
case "${1:-}" in test | fuzz) packages+=(clang libclang-rt-14-dev) ;; esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "tether: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
