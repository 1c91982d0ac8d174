#!/bin/sh
# bench.sh measures what docs/performance.md describes and writes the
# figures to docs/figures.md, with the machine and its load average before
# and after; then it copies the rows the README and docs/performance.md
# quote into them (go test ./cmd/mcpconform -run TestDocFigures -update).
# Each figure is the median of COUNT runs; a figure with a peer or a floor
# is measured side by side with it in the same run, so both see the same
# load. Nothing is timed in a test.
#
# It needs the npm servers (make deps) and GNU time (/usr/bin/time).
# Usage: scripts/bench.sh [COUNT [REF]]   (default 5; REF is the commit
# whose binary the real-server table sets beside this tree's, main^1 by
# default)
set -eu
cd "$(dirname "$0")/.."
count=${1:-5}
ref=${2:-main^1}
tmp=$(mktemp -d)
loops=""
trap 'kill $loops 2>/dev/null || :; rm -rf "$tmp"' EXIT

me=bench.sh
# shellcheck source=scripts/benchlib.sh
. scripts/benchlib.sh

load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# metric BENCH UNIT prints the median of the value before UNIT on the lines
# of benchmark BENCH (exact name, without the -N suffix).
metric() {
	awk -v b="$1" -v u="$2" '{
		name = $1; sub(/-[0-9]+$/, "", name)
		if (name != b) next
		for (i = 2; i <= NF; i++) if ($(i) == u) print $(i - 1)
	}' "$tmp/bench.txt" | median
}

# pairratio A B prints the median over runs of B's ns/op divided by A's in
# the same run: the sub-benchmarks of one case run back to back, so each
# pair saw the same load even when the load changes between runs.
pairratio() {
	awk -v a="$1" -v b="$2" '{
		name = $1; sub(/-[0-9]+$/, "", name)
		if (name == a) x[++na] = $3
		if (name == b) y[++nb] = $3
	} END {for (i = 1; i <= na && i <= nb; i++) print y[i] / x[i]}' "$tmp/bench.txt" | median
}

# statuses REPORT prints the fail, warn and error counts of a JSON report
# (its summary's byStatus).
statuses() {
	awk '/"byStatus"/ {on = 1; next} on && /}/ {exit} on {gsub(/[",]/, ""); c[$1] = $2}
		END {printf "%d fail, %d warn, %d error", c["fail:"], c["warn:"], c["error:"]}' "$1"
}

# row MEASUREMENT FIGURE [BESIDE] appends a row to the table.
row() { echo "| $1 | $2 |${3:+ $3} |" >>"$tmp/rows.md"; }

# runs N prints "N run" or "N runs".
runs() { if [ "$1" = 1 ]; then echo "1 run"; else echo "$1 runs"; fi; }

go build -o "$tmp/mcpconform" ./cmd/mcpconform
go build -o "$tmp/ntools" ./internal/fixtures/ntools
: >"$tmp/rows.md"

# Run time of the binary users run.
i=0
while [ $i -lt "$count" ]; do
	timed "$tmp/ref.txt" "$tmp/mcpconform" run --no-color
	timed "$tmp/refproc.txt" "$tmp/mcpconform" run --no-color -- "$tmp/mcpconform" reference
	i=$((i + 1))
done
row '`mcpconform run`, the embedded reference' "$(wall "$tmp/ref.txt") s wall, $(cpu "$tmp/ref.txt") CPU-s"
row '`mcpconform run -- mcpconform reference`' "$(wall "$tmp/refproc.txt") s wall, $(cpu "$tmp/refproc.txt") CPU-s" 'every server a process'
# The pinned real servers, beside the binary of REF; a
# row of the table for each comes from them.
evruns=$(((count + 1) / 2))
scripts/benchservers.sh "$evruns" "$ref" >"$tmp/servers.md"
beside=$(sed -n 's/.*this tree beside \([^ ]*\) (\(.*\)) in the same run.*/\2 (\1)/p' "$tmp/servers.md")
load=$(sed -n 's/.*load average (1, 5, 15 min) \([^ ]*\) .* before, \([^ ]*\) .* after.*/\1 before, \2 after/p' "$tmp/servers.md")
awk -F' [|] ' -v runs="$(runs "$evruns")" -v beside="$beside" -v load="$load" 'BEGIN {
	name["| gosdk"] = "the Go SDK fixture"
	name["| tsv2"] = "the TypeScript SDK v2 server"
	name["| server-everything"] = "server-everything"
} $1 in name {
	split($2, w, /[ ()]+/); split($3, c, /[ ()]+/); split($4, p, /[ ()]+/)
	printf "| `mcpconform run` against %s | %s s wall, %s CPU-s, %s processes | median of %s, every revision over stdio, load %s; %s beside it: %s s wall, %s CPU-s, %s processes |\n", name[$1], w[1], c[1], p[1], runs, load, beside, w[3], c[3], p[3]
}' "$tmp/servers.md" >>"$tmp/rows.md"

# server-everything beside two busy loops (a core each), each run paired
# with one without them, so that the ratio compares runs a minute apart.
i=0
while [ $i -lt "$evruns" ]; do
	# shellcheck disable=SC2086 # flags are words
	timed "$tmp/ev-idle.txt" "$tmp/mcpconform" run --no-color $everything_flags -- node "$everything"
	sh -c 'while :; do :; done' &
	loops=$!
	sh -c 'while :; do :; done' &
	loops="$loops $!"
	# shellcheck disable=SC2086
	timed "$tmp/ev-busy.txt" "$tmp/mcpconform" run --no-color $everything_flags -- node "$everything"
	# shellcheck disable=SC2086 # two pids
	kill $loops
	loops=""
	i=$((i + 1))
done
row '`mcpconform run` against server-everything beside two busy loops' "$(wall "$tmp/ev-busy.txt") s wall" \
	"$(awk -v b="$(wall "$tmp/ev-busy.txt")" -v i="$(wall "$tmp/ev-idle.txt")" 'BEGIN {printf "%.2f", b / i}')x its runs without them in the same bench ($(wall "$tmp/ev-idle.txt") s); median of $(runs "$evruns"), every revision over stdio"

# Over HTTP, side by side with the official suite's default run against
# one loopback server-everything (benchhttp.sh).
scripts/benchhttp.sh "$count" >>"$tmp/rows.md"
for n in 10000 50000; do
	timed "$tmp/n$n.txt" "$tmp/mcpconform" run --no-color --json "$tmp/n$n.json" -- "$tmp/ntools" -n "$n"
	row "\`mcpconform run\` against ${n%000},000 tools" "$(wall "$tmp/n$n.txt") s wall, $(cpu "$tmp/n$n.txt") CPU-s, $(rss "$tmp/n$n.txt") MiB" "one run of \`ntools -n $n\`; $(statuses "$tmp/n$n.json")"
done

# Hostile servers, each with default flags.
scripts/hostile.sh >"$tmp/hostile.md"
awk -F' [|] ' '/^[|] `/ {
	n++; s = $2; sub(/ s$/, "", s); if (s + 0 > max) {max = s + 0; m = $1}
	if ($5 !~ /^0 [|]$/) left++
} END {sub(/^[|] /, "", m); printf "| hostile servers (`scripts/hostile.sh`) | slowest %.1f s (%s) | %d servers; %d left a process running |\n", max, m, n, left}' "$tmp/hostile.md" >>"$tmp/rows.md"

# Long server strings beside the same server's short ones (textcost.sh).
scripts/textcost.sh "$count" 2>/dev/null | awk -F' [|] ' -v count="$count" '
/^[|] short/ {sc = $3; sm = $5}
/^[|] 1 MiB/ {lc = $3; lm = $5}
/^[|] ratio/ {rc = $3; rs = $4; rm = $5}
END {
	sub(/ [|]$/, "", sm); sub(/ [|]$/, "", lm); sub(/ [|]$/, "", rm)
	printf "| long server strings (`scripts/textcost.sh`) | %s CPU-s, %s | mcpconform against the 1 MiB `hostile-text` beside the short one (%s CPU-s, %s): %sx the CPU-s, %sx the peak memory; the servers\x27 CPU-s %sx; median of %d runs |\n", lc, lm, sc, sm, rc, rm, rs, count
}' >>"$tmp/rows.md"

# The property phase against its ping floors (BenchmarkPropertyPhase).
go test -run '^$' -bench '^BenchmarkPropertyPhase$' -benchtime "${count}x" ./cmd/mcpconform/ >"$tmp/bench.txt" 2>&1 || {
	cat "$tmp/bench.txt" >&2
	exit 1
}
for target in embedded process; do
	for cases in 100 1000; do
		b="BenchmarkPropertyPhase/target=$target/cases=$cases"
		rate=$(metric "$b" req/s)
		rtt=$(metric "$b" rtt-floor-req/s)
		floor=$(metric "$b" floor-req/s)
		cpus=$(metric "$b" cpu-s/run)
		row "property phase, $target, --cases $cases" "$(printf '%.0f' "$rate") req/s, $(printf '%.3f' "$cpus") CPU-s a run" \
			"$(awk -v a="$rate" -v c="$rtt" -v p="$floor" 'BEGIN {printf "%.2f of the ping floor (%.0f req/s); %.2f of the pipelined floor (%.0f req/s)", a / c, c, a / p, p}')"
	done
done

# Compiled validation and discovery. Short runs, many of them: ours and
# santhosh's alternate more often.
go test -run '^$' -bench '^(BenchmarkCompiledValidate|BenchmarkDiscoverCached|BenchmarkDiscoverCold)$' \
	-benchmem -benchtime 300ms -count "$((count * 3))" ./reference/ >"$tmp/bench.txt"
for c in traced-call valid nested; do
	ns=$(metric "BenchmarkCompiledValidate/$c" ns/op)
	al=$(metric "BenchmarkCompiledValidate/$c" allocs/op)
	sns=$(metric "BenchmarkCompiledValidate/$c/santhosh" ns/op)
	sal=$(metric "BenchmarkCompiledValidate/$c/santhosh" allocs/op)
	ratio=$(pairratio "BenchmarkCompiledValidate/$c" "BenchmarkCompiledValidate/$c/santhosh")
	row "compiled validation, $c" "$(printf '%.0f' "$ns") ns, $al allocs" "$(printf '%.1f' "$ratio")x faster than santhosh-tekuri/jsonschema ($(printf '%.0f' "$sns") ns, $sal allocs)"
done
ns=$(metric BenchmarkDiscoverCached ns/op)
al=$(metric BenchmarkDiscoverCached allocs/op)
row 'discovery over 10,000 tools, cached' "$(printf '%.0f' "$ns") ns, $al allocs"
ns=$(metric BenchmarkDiscoverCold ns/op)
al=$(metric BenchmarkDiscoverCold allocs/op)
row 'discovery over 10,000 tools, cold' "$(awk -v n="$ns" 'BEGIN {printf "%.2f ms", n / 1e6}'), $al allocs"

# The in-process properties, 1,000 cases each, compiled first.
go test -c -o "$tmp/properties.test" ./properties/
i=0
while [ $i -lt "$count" ]; do
	(cd properties && timed "$tmp/props.txt" "$tmp/properties.test" -test.count=1 -test.run '^TestPropertiesHoldOnReference$')
	grep -q '^PASS$' "$tmp/last.out" || {
		cat "$tmp/last.out" >&2
		exit 1
	}
	i=$((i + 1))
done
row 'in-process properties, 1,000 cases each' "$(wall "$tmp/props.txt") s wall" '`go test ./properties/`'

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo '# Figures'
	echo
	echo 'Written by `scripts/bench.sh`; do not edit.'
	echo '[performance.md](performance.md) says what each figure measures.'
	echo
	echo '<!-- figures -->'
	echo "Measured on $(nproc) cores ($(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //')), $(go env GOOS)/$(go env GOARCH), $(go env GOVERSION); load average (1, 5, 15 min) $load_before before, $load_after after; each figure the median of $(runs "$count")."
	echo
	echo '| measurement | figure | beside it |'
	echo '|---|---|---|'
	cat "$tmp/rows.md"
	echo '<!-- end figures -->'
	echo
	echo '## Real servers'
	echo
	echo 'The pinned real servers of the tests, every revision over stdio'
	echo '(`scripts/benchservers.sh`): wall time, CPU seconds (the servers'"'"
	echo 'included), server processes started and each revision'"'"'s time, beside'
	echo 'the binary built from main'"'"'s first parent in the same run.'
	echo
	cat "$tmp/servers.md"
	echo
	echo '## Hostile servers'
	echo
	echo 'Each server of `internal/fixtures/hostile` under `mcpconform run` with'
	echo 'default flags: wall time, exit status, the report'"'"'s closing line, and'
	echo 'how many of the processes it started outlived the run.'
	echo
	cat "$tmp/hostile.md"
} >"$tmp/final.md"
mv "$tmp/final.md" docs/figures.md
go test -count=1 -run '^TestDocFigures$' ./cmd/mcpconform/ -update >/dev/null
echo "bench.sh: wrote docs/figures.md" >&2
