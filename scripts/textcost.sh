#!/bin/sh
# textcost.sh prints, as a Markdown table, what a server's long strings
# cost a run: `mcpconform run` with default flags against the mutant
# "hostile-text" (1 MiB in its name, version and a tool's name and
# description) and "hostile-text-short" (the same text, a few bytes of
# padding), taken in turns COUNT times each so that both see the same
# load. For each: the median wall time, the median CPU seconds (user and
# system) of mcpconform and of the servers it started, as its report's
# timing gives them, the median peak resident memory of the mcpconform
# process alone (its VmHWM, read until it exits), and the ratios. On a
# shared machine the wall time measures the load; the suite's CPU seconds
# and memory measure the suite. It uses the binaries users run, built
# here, and prints the load average before and after on stderr.
# Usage: scripts/textcost.sh [COUNT]   (default 5)
set -eu
cd "$(dirname "$0")/.."
count=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/mcpconform" ./cmd/mcpconform
go build -o "$tmp/mutant" ./internal/fixtures/mutant/cmd/mutant

# measure MUTATION appends "WALL_SECONDS PEAK_KB SUITE_CPU SERVER_CPU"
# to $tmp/MUTATION.
measure() {
	start=$(date +%s.%N)
	"$tmp/mcpconform" run --json "$tmp/$1.json" -- "$tmp/mutant" -mutation "$1" >/dev/null 2>&1 &
	pid=$!
	peak=0
	while kill -0 "$pid" 2>/dev/null; do
		v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
		[ -z "$v" ] || peak=$v
		sleep 0.05
	done
	wait "$pid" || true
	end=$(date +%s.%N)
	cpu=$(tr ',' '\n' <"$tmp/$1.json" | awk -F: '/"suiteCpuMs"/ {s = $2} /"serverCpuMs"/ {c = $2} END {print s / 1000, c / 1000}')
	echo "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}') $peak $cpu" >>"$tmp/$1"
}

# median COLUMN FILE prints the median of a column.
median() {
	cut -d' ' -f"$1" "$2" | sort -g | awk '{v[NR] = $1} END {if (NR % 2) {print v[(NR + 1) / 2]} else {print (v[NR / 2] + v[NR / 2 + 1]) / 2}}'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)" >&2
i=0
while [ "$i" -lt "$count" ]; do
	measure hostile-text-short
	measure hostile-text
	i=$((i + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

ws=$(median 1 "$tmp/hostile-text-short") ms=$(median 2 "$tmp/hostile-text-short")
cs=$(median 3 "$tmp/hostile-text-short") ss=$(median 4 "$tmp/hostile-text-short")
wl=$(median 1 "$tmp/hostile-text") ml=$(median 2 "$tmp/hostile-text")
cl=$(median 3 "$tmp/hostile-text") sl=$(median 4 "$tmp/hostile-text")
echo "| server strings | wall (median of $count) | CPU-s of mcpconform | CPU-s of the servers | peak memory of mcpconform |"
echo "|---|---|---|---|---|"
printf '| short (`hostile-text-short`) | %.1f s | %.2f | %.2f | %d MB |\n' "$ws" "$cs" "$ss" "$((ms / 1024))"
printf '| 1 MiB (`hostile-text`) | %.1f s | %.2f | %.2f | %d MB |\n' "$wl" "$cl" "$sl" "$((ml / 1024))"
awk -v ws="$ws" -v wl="$wl" -v cs="$cs" -v cl="$cl" -v ss="$ss" -v sl="$sl" -v ms="$ms" -v ml="$ml" \
	'BEGIN {printf "| ratio | %.2f | %.2f | %.2f | %.2f |\n", wl / ws, cl / cs, sl / ss, ml / ms}'
