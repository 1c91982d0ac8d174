#!/bin/sh
# benchservers.sh runs mcpconform against the pinned real servers of the
# tests (the official Go SDK fixture, the TypeScript SDK v2 server and
# server-everything, all revisions over stdio) and prints a Markdown table:
# per server, the wall time, CPU seconds (the servers' included), server
# processes started and each revision's time, for this tree's binary and,
# side by side in the same run (alternating, so both see the same load),
# for the binary built from REF (default main^1, main's first parent).
# Each figure is the median of COUNT runs. Nothing is timed in a test.
#
# It needs the npm servers (make deps) and GNU time (/usr/bin/time).
# Usage: scripts/benchservers.sh [COUNT [REF]]   (default 3, main^1)
set -eu
cd "$(dirname "$0")/.."
count=${1:-3}
ref=${2:-main^1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

me=benchservers.sh
# shellcheck source=scripts/benchlib.sh
. scripts/benchlib.sh

go build -o "$tmp/new" ./cmd/mcpconform
go build -o "$tmp/gosdk" ./internal/fixtures/gosdk
build_ref "$ref"

# Each server runs through a wrapper that counts its starts.
wrap gosdk "$tmp/gosdk"
wrap tsv2 node "$PWD/testdata/npm/tsv2/server.mjs"
wrap everything node "$PWD/$everything"

# once BIN SERVER FLAGS appends "wall cpu starts" of one run to
# $tmp/BIN-SERVER.txt and keeps the JSON report.
once() {
	# shellcheck disable=SC2086 # flags are words
	once_counted "$1" "$2" $3
	if [ "$1" = new ]; then
		# Per revision seconds, from the report's timing.
		awk '/"revisions": \[/ && t {on = 1} /"timing"/ {t = 1}
			on && /"revision":/ {gsub(/[",]/, ""); r = $2}
			on && /"ms":/ {gsub(/,/, ""); printf "%s %.1f\n", r, $2 / 1000}
			on && /^    \]/ {on = 0}' "$tmp/new-$2.json" >>"$tmp/rev-$2.txt"
	fi
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for srv in gosdk tsv2 everything; do
	flags=""
	[ "$srv" = everything ] && flags=$everything_flags
	i=0
	while [ $i -lt "$count" ]; do
		once old "$srv" "$flags"
		once new "$srv" "$flags"
		i=$((i + 1))
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "Measured on $(nproc) cores, load average (1, 5, 15 min) $load_before before, $load_after after; medians of $count runs, this tree beside $oldname ($ref) in the same run."
echo
echo "| server | wall (s) | CPU (s) | processes | per revision (s) |"
echo "|---|---|---|---|---|"
for srv in gosdk tsv2 everything; do
	revs=$(awk '{v[$1] = v[$1] " " $2} END {for (r in v) print r, v[r]}' "$tmp/rev-$srv.txt" | sort |
		while read -r r vals; do printf '%s %s; ' "$r" "$(echo "$vals" | tr ' ' '\n' | median)"; done)
	name=$srv
	[ "$srv" = everything ] && name=server-everything
	wall_new=$(col "$tmp/new-$srv.txt" 1)
	wall_old=$(col "$tmp/old-$srv.txt" 1)
	cpu_new=$(col "$tmp/new-$srv.txt" 2)
	cpu_old=$(col "$tmp/old-$srv.txt" 2)
	procs_new=$(col "$tmp/new-$srv.txt" 3)
	procs_old=$(col "$tmp/old-$srv.txt" 3)
	printf '| %s | %s (was %s) | %s (was %s) | %s (was %s) | %s |\n' "$name" "$wall_new" "$wall_old" "$cpu_new" "$cpu_old" "$procs_new" "$procs_old" "${revs%; }"
done
