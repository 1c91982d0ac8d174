#!/bin/sh
# benchhttp.sh runs `mcpconform run --url` and the official suite's default
# run (@modelcontextprotocol/conformance, pinned in testdata/npm-bench) in
# turn against one server-everything in streamableHttp mode on 127.0.0.1,
# COUNT times each, and prints the median wall and CPU seconds of both side
# by side. It writes no figure: bench.sh records the pair in
# docs/figures.md; this is the quick look, best on an idle machine.
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

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
i=0
while [ $i -lt "$count" ]; do
	timed "$tmp/official.txt" "$peers/node_modules/.bin/node" "$peers/node_modules/@modelcontextprotocol/conformance/dist/index.js" server --url "$url" -o "$tmp/official"
	timed "$tmp/ours.txt" "$tmp/mcpconform" run --no-color --json "$tmp/ours.json" --url "$url"
	i=$((i + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

official=$(find "$tmp/official" -name checks.json -exec node -e 'let n = 0; for (const f of process.argv.slice(1)) n += require(f).length; console.log(n)' {} + | tail -n 1)
ours=$(node -p "require('$tmp/ours.json').results.length")
version=$(node -p "require('./$peers/node_modules/@modelcontextprotocol/conformance/package.json').version")
printf '%-44s %8s %8s %8s\n' "server-everything over HTTP, median of $count" "wall s" "CPU s" results
printf '%-44s %8s %8s %8s\n' "mcpconform run --url" "$(wall "$tmp/ours.txt")" "$(cpu "$tmp/ours.txt")" "$ours"
printf '%-44s %8s %8s %8s\n' "official suite $version, default run" "$(wall "$tmp/official.txt")" "$(cpu "$tmp/official.txt")" "$official"
echo "load average before $load_before, after $load_after ($(nproc) cores)"
