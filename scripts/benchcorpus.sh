#!/bin/sh
# benchcorpus.sh runs mcpconform against the pinned real servers of the
# wider corpus (context7, chrome-devtools-mcp, Notion, MongoDB and
# Firecrawl, pinned in testdata/npm-bench, which it installs on first
# use), all revisions over stdio with default flags, and prints a Markdown
# table: per server, its version, the wall time, CPU seconds (the servers'
# included), server processes started, each revision's time, the results
# by status and the three slowest checks (from the JSON report's
# per-result durationMs). With REF, the binary built from REF runs too,
# alternating with this tree's (so both see the same load), and its
# figures follow in parentheses. Each figure is the median of COUNT runs;
# statuses and slowest checks are those of the last run. Nothing is timed
# in a test.
#
# The servers get no API key, URL or credential: the tools that reach the
# internet fail, which is what the suite sees. No --allow-calls is given.
#
# It needs node, jq and GNU time (/usr/bin/time).
# Usage: scripts/benchcorpus.sh [COUNT [REF]]   (default 1, no REF)
set -eu
cd "$(dirname "$0")/.."
count=${1:-1}
ref=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

me=benchcorpus.sh
# shellcheck source=scripts/benchlib.sh
. scripts/benchlib.sh
if ! command -v jq >/dev/null; then
	echo "$me: jq is missing: apt-get install jq" >&2
	exit 1
fi

# The corpus: a short name, the npm package and the program it installs.
corpus="context7 @upstash/context7-mcp context7-mcp
chrome-devtools chrome-devtools-mcp chrome-devtools-mcp
notion @notionhq/notion-mcp-server notion-mcp-server
mongodb mongodb-mcp-server mongodb-mcp-server
firecrawl firecrawl-mcp firecrawl-mcp"

# shellcheck disable=SC2046 # the program names are words
install_peers $(echo "$corpus" | cut -d' ' -f3)

go build -o "$tmp/new" ./cmd/mcpconform
bins=new
if [ -n "$ref" ]; then
	build_ref "$ref"
	bins="old new"
fi

# Each server runs on the machine's Node through a wrapper that counts its
# starts.
echo "$corpus" | while read -r name _ prog; do
	wrap "$name" node "$PWD/$peers/node_modules/.bin/$prog"
done

# once BIN SERVER appends "wall cpu starts" of one run to
# $tmp/BIN-SERVER.txt, each revision's seconds to $tmp/BIN-SERVER.rev and
# keeps the JSON report as $tmp/BIN-SERVER.json.
once() {
	once_counted "$1" "$2"
	jq -r '.timing.revisions[]? | "\(.revision) \(.ms / 1000)"' "$tmp/$1-$2.json" >>"$tmp/$1-$2.rev"
}

# revs BIN SERVER prints each revision's median seconds.
revs() {
	[ -s "$tmp/$1-$2.rev" ] || return 0
	awk '{v[$1] = v[$1] " " $2} END {for (r in v) print r, v[r]}' "$tmp/$1-$2.rev" | sort |
		while read -r r vals; do printf '%s %.1f; ' "$r" "$(echo "$vals" | tr ' ' '\n' | median)"; done | sed 's/; $//'
}

# statuses BIN SERVER prints the last run's results by status.
statuses() {
	jq -r '[.results[].status] | group_by(.) | map("\(length) \(.[0])") | join(", ")' "$tmp/$1-$2.json"
}

# slowest BIN SERVER prints the last run's three slowest results.
slowest() {
	jq -r '[.results[] | {k: "\(.id)@\(.revision)", s: (.durationMs / 1000)}] | sort_by(-.s) | .[:3] | map("\(.k) \(.s * 10 | round / 10)") | join("; ")' "$tmp/$1-$2.json"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for srv in $(echo "$corpus" | cut -d' ' -f1); do
	i=0
	while [ $i -lt "$count" ]; do
		for bin in $bins; do
			once "$bin" "$srv"
		done
		i=$((i + 1))
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

if [ -n "$ref" ]; then
	echo "Measured on $(nproc) cores, load average (1, 5, 15 min) $load_before before, $load_after after; medians of $count runs, this tree beside $oldname ($ref, in parentheses) in the same run."
else
	echo "Measured on $(nproc) cores, load average (1, 5, 15 min) $load_before before, $load_after after; medians of $count runs."
fi
echo
echo "| server | version | wall (s) | CPU (s) | processes | per revision (s) | results | slowest checks (s) |"
echo "|---|---|---|---|---|---|---|---|"
echo "$corpus" | while read -r srv pkg _; do
	version=$(jq -r .version "$peers/node_modules/$pkg/package.json")
	row="| $pkg | $version"
	for c in 1 2 3; do
		v=$(col "$tmp/new-$srv.txt" $c)
		[ -n "$ref" ] && v="$v ($(col "$tmp/old-$srv.txt" $c))"
		row="$row | $v"
	done
	for f in revs statuses slowest; do
		v=$($f new "$srv")
		[ -n "$ref" ] && v="$v ($($f old "$srv"))"
		row="$row | $v"
	done
	echo "$row |"
done
