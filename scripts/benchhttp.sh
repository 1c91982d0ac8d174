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

# timed FILE CMD... appends to FILE the wall and CPU seconds (user and
# system, the processes it started included) of one run of CMD. Exit
# status 1, a server that is not conformant, is not an error.
timed() {
	f=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >"$tmp/last.out" 2>&1 || [ $? -eq 1 ] || { cat "$tmp/last.out" >&2; exit 1; }
	tail -n 1 "$tmp/time" | awk '{printf "%.2f %.2f\n", $1, $2 + $3}' >>"$f"
}
wall() { cut -d' ' -f1 <"$1" | median | xargs printf '%.2f'; }
cpu() { cut -d' ' -f2 <"$1" | median | xargs printf '%.2f'; }

peers=testdata/npm-bench
if ! [ -x "$peers/node_modules/.bin/node" ]; then
	(cd "$peers" && npm ci --no-audit --no-fund >/dev/null)
fi
go build -o "$tmp/mcpconform" ./cmd/mcpconform

port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
PORT=$port node --import ./testdata/npm/loopback.mjs "$everything" streamableHttp >"$tmp/everything.log" 2>&1 &
evpid=$!
trap 'kill "$evpid" 2>/dev/null; rm -rf "$tmp"' EXIT
until node -e "require('net').connect($port, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))"; do
	kill -0 "$evpid" || { cat "$tmp/everything.log" >&2; exit 1; }
	sleep 0.2
done
url=http://127.0.0.1:$port/mcp

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
