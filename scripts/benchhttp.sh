#!/bin/sh
# benchhttp.sh runs `mcpconform run --url` and the official suite's default
# run (@modelcontextprotocol/conformance, pinned in testdata/npm-bench) in
# turn against one server-everything in streamableHttp mode on 127.0.0.1,
# COUNT times each, every run of both against the same process, and
# prints the row of docs/figures.md that bench.sh records: the median wall
# and CPU seconds of both, side by side, with the load average before and
# after. The suite's CPU seconds are its own: the server is not its child.
# Before them, `mcpconform run --url` runs once as the first client of the
# server just started (cold: Node compiles as it first answers, and the
# first sessions' streams race the server's start); the row gives that
# run apart, the medians are of the runs after it (warm).
#
# It needs the npm servers (make deps) and GNU time (/usr/bin/time).
# Usage: scripts/benchhttp.sh [COUNT]   (default 5)
set -eu
cd "$(dirname "$0")/.."
count=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

me=benchhttp.sh
# shellcheck source=scripts/benchlib.sh
. scripts/benchlib.sh

install_peers
go build -o "$tmp/mcpconform" ./cmd/mcpconform
serve_everything_http

load_before=$(cut -d' ' -f1 /proc/loadavg)
timed "$tmp/cold.txt" "$tmp/mcpconform" run --no-color --json "$tmp/cold.json" --url "$url"
i=0
while [ $i -lt "$count" ]; do
	rm -rf "$tmp/official"
	timed "$tmp/official.txt" "$peers/node_modules/.bin/node" "$peers/node_modules/@modelcontextprotocol/conformance/dist/index.js" server --url "$url" -o "$tmp/official"
	timed "$tmp/ours.txt" "$tmp/mcpconform" run --no-color --json "$tmp/ours.json" --url "$url"
	i=$((i + 1))
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

official=$(find "$tmp/official" -name checks.json -exec node -e 'let n = 0; for (const f of process.argv.slice(1)) n += require(f).length; console.log(n)' {} + | tail -n 1)
ours=$(node -p "require('$tmp/ours.json').results.length")
# The statuses of the cold run that differ from the last warm run's.
differ=$(node -e "const key = r => r.id + '@' + r.revision; const warm = new Map(require('$tmp/ours.json').results.map(r => [key(r), r.status])); console.log(require('$tmp/cold.json').results.filter(r => warm.get(key(r)) !== r.status).length)")
version=$(node -p "require('./$peers/node_modules/@modelcontextprotocol/conformance/package.json').version")
runs=$(if [ "$count" = 1 ]; then echo "1 run"; else echo "$count runs"; fi)
echo "| \`mcpconform run --url\` against server-everything over HTTP | $(wall "$tmp/ours.txt") s wall, $(cpu "$tmp/ours.txt") CPU-s | results: $ours; median of $runs, load $load_before before, $load_after after; the official suite's default run ($version) beside it, the same server: $(wall "$tmp/official.txt") s wall, $(cpu "$tmp/official.txt") CPU-s, results: $official; before them, the first run against the server just started (cold): $(wall "$tmp/cold.txt") s wall, $(cpu "$tmp/cold.txt") CPU-s, $differ statuses unlike the warm run's |"
