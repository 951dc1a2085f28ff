#!/bin/sh
# gallery.sh writes the stills of docs/images/: one per built-in scene at a
# moment that shows what the scene is for (SCENE.png), and the README's
# hero.png, with `drape record` in the fabric look (issue 40). Run it from
# the repository root with a display (any X server: xvfb-run will do):
#
#	xvfb-run -a -s "-screen 0 1280x800x24 -noreset" tools/gallery.sh [bin/drape]
#
# It takes a few minutes (the full-resolution curtain and sphere are the
# slow ones).
set -eu
drape=${1:-bin/drape}
out=docs/images
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# still NAME SECONDS SIZE FILE: the frame of NAME at SECONDS, SIZE pixels.
still() {
	rm -rf "$tmp/f"
	"$drape" record --scene "$1" --seconds "$2" --fps 2 --size "$3" --look fabric --out "$tmp/f" >/dev/null
	cp "$(ls "$tmp"/f/frame_*.png | tail -n 1)" "$4"
	echo "$4"
}

# The moments: after the cloth has landed, draped or been gathered.
while read -r name t; do
	still "$name" "$t" 400x225 "$out/$name.png"
done <<'LIST'
hanging 3
hanging-irregular 3
curtain 10
curtain-adaptive 10
sphere 4
sphere-adaptive 4
ground 2
ground-angled 4
fold 3
drop-pile 4
two-sheets 3
tablecloth 3
drape-box 4
bunny 3
springs-sheet 3
springs-tablecloth 3
springs-pole 3
springs-small 3
LIST
still sphere-adaptive 4 960x540 "$out/hero.png"
