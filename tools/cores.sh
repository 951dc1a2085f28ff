#!/bin/sh
# cores.sh prints every built-in scene's mean ms per step on 1, 2, 4, 8
# and 16 cores, and each count's speedup over one core (issue 43): one
# `drape bench` of every built-in scene (or SCENES) per core count, the
# process held to that many cores by taskset and GOMAXPROCS set to
# match, so that a short loan of a many-core machine suffices. Run it from the repository root:
#
#	tools/cores.sh [bin/drape]
#
# SECONDS_PER_SCENE (default 3) is the simulated time per scene and run;
# CORES (default "1 2 4 8 16") the counts, those above the machine's
# skipped; SCENES (default all) the scenes, as drape bench's --scene
# takes them. For issue 43's adaptive speedup at each core count, the
# pairs at a length where the adaptive runs have refined (about 6 min
# on the 16-core device machine at 466aedf's speeds):
#
#	SCENES=curtain,curtain-adaptive,sphere,sphere-adaptive SECONDS_PER_SCENE=5 tools/cores.sh At 3 s the whole table takes about as long as 15 s of every
# scene on one core. The Markdown table goes to stdout, each run's own
# table to stderr.
set -eu
drape=${1:-bin/drape}
seconds=${SECONDS_PER_SCENE:-3}
cores=${CORES:-"1 2 4 8 16"}
scenes=${SCENES:-all}
have=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# taskset holds the process to c cores where the kernel lets it; where it
# cannot (no taskset, or a sandbox that refuses affinity), GOMAXPROCS alone
# sets the count, and the table says so.
pin=taskset
if ! taskset -c 0 true 2>/dev/null; then
	pin=""
	echo "cores.sh: taskset unavailable; GOMAXPROCS alone sets the core count" >&2
fi
ran=""
for c in $cores; do
	if [ "$c" -gt "$have" ]; then
		echo "cores.sh: skipping $c cores, the machine has $have" >&2
		continue
	fi
	${pin:+taskset -c "0-$((c - 1))"} env GOMAXPROCS="$c" "$drape" bench --scene "$scenes" --seconds "$seconds" >"$tmp/$c.md"
	cat "$tmp/$c.md" >&2
	ran="$ran $c"
done
# Join the runs' rows by scene: column 5 of each row is the mean ms/step.
for c in $ran; do
	awk -F'|' -v c="$c" '/^\| [a-z]/ && $2 !~ /scene/ { gsub(/ /, "", $2); gsub(/ /, "", $5); print $2, c, $5 }' "$tmp/$c.md"
done | awk -v ran="$ran" -v secs="$seconds" '
	{ ms[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	END {
		k = split(ran, cs, " ")
		printf "mean ms/step over %s s simulated per scene (speedup over %s core%s in brackets)\n\n| scene |", secs, cs[1], cs[1] == 1 ? "" : "s"
		for (j = 1; j <= k; j++) printf " %s core%s |", cs[j], cs[j] == 1 ? "" : "s"
		printf "\n|---|"
		for (j = 1; j <= k; j++) printf "---:|"
		printf "\n"
		for (i = 1; i <= n; i++) {
			s = order[i]; printf "| %s |", s
			for (j = 1; j <= k; j++) {
				v = ms[s, cs[j]]; b = ms[s, cs[1]]
				if (v == "") printf " – |"
				else if (j == 1 || v == 0) printf " %.2f |", v
				else printf " %.2f (%.2f×) |", v, b / v
			}
			printf "\n"
		}
	}'
