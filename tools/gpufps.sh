#!/bin/sh
# gpufps.sh measures the viewer's frame rate on the full-resolution
# curtain (22 140 triangles) while it simulates, uncapped (--max-fps 0,
# vsync off), for issue 40's target "60 fps on the curtain at full
# resolution on a real GPU". It starts its own Xvfb and reads the smoothed
# rate ("fps") and the simulation's rate from the viewer's --state.
#
#	tools/gpufps.sh [bin/drape]
#
# On this project's device machine (an NVIDIA GPU and no display: see
# .library/device/README.md) GLX windows run on the GPU under a carried
# Xvfb and Mesa with __GLX_VENDOR_LIBRARY_NAME=nvidia, which the caller
# exports; without it, Xvfb's Mesa draws on the CPU (llvmpipe), which is
# the figure to compare with. FRAMES (default 600) frames per scene;
# SCENES (default "curtain curtain-adaptive") the scenes.
set -eu
drape=${1:-bin/drape}
frames=${FRAMES:-600}
scenes=${SCENES:-"curtain curtain-adaptive"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| scene | frames | fps | steps/s | GL renderer |"
echo "|---|---:|---:|---:|---|"
for s in $scenes; do
	xvfb-run -a -s "-screen 0 1280x800x24 -noreset" \
		"$drape" view --scene "$s" --max-fps 0 --frames "$frames" --state "$tmp/$s.json" >"$tmp/$s.log" 2>&1 || {
		echo "gpufps.sh: the viewer failed on $s:" >&2
		cat "$tmp/$s.log" >&2
		exit 1
	}
	fps=$(sed -n 's/.*"fps": *\([0-9.eE+-]*\).*/\1/p' "$tmp/$s.json" | head -1)
	sps=$(sed -n 's/.*"steps_per_s": *\([0-9.eE+-]*\).*/\1/p' "$tmp/$s.json" | head -1)
	gl=$(sed -n 's/.*"gl_renderer": *"\([^"]*\)".*/\1/p' "$tmp/$s.json" | head -1)
	echo "| $s | $frames | ${fps:-?} | ${sps:-?} | ${gl:-?} |"
done
