#!/bin/sh
# bench.sh prints, in one run, the performance table of issue 13 as
# Markdown, each figure the median of COUNT runs measured side by side with
# its peer or floor in this same run:
#   - compiled validate against santhosh-tekuri/jsonschema/v6 on the same
#     precompiled cases (BenchmarkCompiledValidate): target >= 3x faster;
#   - discovery over 10,000 tools, cached and cold (BenchmarkDiscoverCached,
#     BenchmarkDiscoverCold): targets <= 2 us with 0 allocations, <= 5 ms;
#   - the property phase against its ping floor (BenchmarkPropertyPhase),
#     for the embedded target and for `mcpconform reference` as a process:
#     targets >= 10,000 req/s and >= 0.5 of the ping floor, one ping at a
#     time as issue 13 measured it (scripts/issue13-floor.sh); the ratio to
#     the pipelined floor is printed beside it;
#   - `mcpconform run` wall time against the embedded reference (next to
#     the same server run as processes, `-- mcpconform reference`) and
#     against @modelcontextprotocol/server-everything: targets <= 0.5 s and
#     <= 8 s.
# It also prints the load average before and after, since the machine is
# shared: quote it with the table.
# Usage: scripts/bench.sh [COUNT]   (default 5)
set -eu
cd "$(dirname "$0")/.."
count=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
echo

# median reads numbers, one a line, and prints their median.
median() {
	sort -g | awk '{v[NR] = $1} END {if (NR == 0) {print "?"} else if (NR % 2) {print v[(NR + 1) / 2]} else {print (v[NR / 2] + v[NR / 2 + 1]) / 2}}'
}

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

# Short runs, many of them: ours and santhosh's alternate more often.
go test -run '^$' -bench '^(BenchmarkCompiledValidate|BenchmarkDiscoverCached|BenchmarkDiscoverCold)$' \
	-benchmem -benchtime 300ms -count "$((count * 3))" ./reference/ >"$tmp/bench.txt"

echo "| measurement | ours | peer / floor | ratio | target |"
echo "|---|---|---|---|---|"
for c in traced-call valid nested; do
	ns=$(metric "BenchmarkCompiledValidate/$c" ns/op)
	al=$(metric "BenchmarkCompiledValidate/$c" allocs/op)
	sns=$(metric "BenchmarkCompiledValidate/$c/santhosh" ns/op)
	sal=$(metric "BenchmarkCompiledValidate/$c/santhosh" allocs/op)
	ratio=$(pairratio "BenchmarkCompiledValidate/$c" "BenchmarkCompiledValidate/$c/santhosh" | awk '{printf "%.1fx faster", $1}')
	echo "| compiled validate, $c | $ns ns, $al allocs | santhosh $sns ns, $sal allocs | $ratio | >= 3x |"
done
ns=$(metric BenchmarkDiscoverCached ns/op)
al=$(metric BenchmarkDiscoverCached allocs/op)
echo "| discover 10,000 tools, cached | $ns ns, $al allocs | | | <= 2 us, 0 allocs |"
ns=$(metric BenchmarkDiscoverCold ns/op)
al=$(metric BenchmarkDiscoverCold allocs/op)
echo "| discover 10,000 tools, cold | $(awk -v n="$ns" 'BEGIN {printf "%.2f ms", n / 1e6}'), $al allocs | | | <= 5 ms |"

# The property phase: the benchmark reports its request rate and the ping
# floors of the same server in the same run (one ping at a time, the round
# trip, the floor issue 13's target names, and 64 in flight, the
# transport's throughput), for the embedded target as `mcpconform run`
# serves it and for `mcpconform reference` as a process.
go test -run '^$' -bench '^BenchmarkPropertyPhase$' -benchtime "${count}x" ./cmd/mcpconform/ >"$tmp/bench.txt" 2>&1 || {
	cat "$tmp/bench.txt" >&2
	exit 1
}
# One row per target and --cases: at the default 100 the run's fixed costs
# weigh most; at 1000 the rate the phase sustains.
for target in embedded process; do
	for cases in 100 1000; do
		b="BenchmarkPropertyPhase/target=$target/cases=$cases"
		rate=$(metric "$b" req/s)
		floor=$(metric "$b" floor-req/s)
		rtt=$(metric "$b" rtt-floor-req/s)
		whole=$(metric "$b" run-req/s)
		cpus=$(metric "$b" cpu-s/run)
		cpr=$(metric "$b" cpu-us/req)
		cpp=$(metric "$b" floor-cpu-us/ping)
		ratio=$(awk -v a="$rate" -v b="$floor" -v c="$rtt" 'BEGIN {if (b > 0 && c > 0) printf "%.2f of floor (%.2f of pipelined)", a / c, a / b}')
		echo "| property phase, $target, --cases $cases | $rate req/s (whole run $whole req/s; $cpus CPU-s a run, $cpr CPU-us a request) | ping floor $rtt req/s (pipelined $floor req/s, $cpp CPU-us a ping) | $ratio | >= 10,000 req/s, >= 0.5 of floor |"
		# What the phase spends per request once its fixed costs (the
		# processes it starts, their handshakes and listings) are paid:
		# the requests --cases 1000 adds over 100, over the span it adds.
		if [ "$cases" = 100 ]; then
			n1=$(metric "$b" requests/run) r1=$rate
		else
			n2=$(metric "$b" requests/run) r2=$rate f2=$floor
		fi
	done
	awk -v n1="$n1" -v r1="$r1" -v n2="$n2" -v r2="$r2" -v f="$f2" -v t="$target" 'BEGIN {
		d = n2 / r2 - n1 / r1
		if (d > 0 && f > 0) printf "| property phase, %s, marginal | %.0f req/s (the %d requests --cases 1000 adds over 100, over the span it adds) | pipelined floor %.0f req/s | %.2f of pipelined | |\n", t, (n2 - n1) / d, n2 - n1, f, (n2 - n1) / d / f
	}'
done

# Run time of the binary users run, against the two servers.
go build -o "$tmp/mcpconform" ./cmd/mcpconform
# walltime CMD... prints the wall seconds of one run and its CPU seconds
# (user and system, its children included: the load of a shared machine
# moves them far less than wall time). Its exit status, 1 for a
# non-conformant server, is not an error here.
walltime() {
	start=$(date +%s.%N)
	sh -c '"$@" >/dev/null 2>&1; status=$?; times >&2; exit $status' sh "$@" 2>"$tmp/times" || [ $? -eq 1 ]
	end=$(date +%s.%N)
	cpu=$(awk 'NR == 2 {split($1, u, "m"); split($2, s, "m"); printf "%.2f", u[1] * 60 + u[2] + s[1] * 60 + s[2]}' "$tmp/times")
	awk -v a="$start" -v b="$end" -v c="$cpu" 'BEGIN {printf "%.2f %s\n", b - a, c}'
}
# wall FILE and cpu FILE print the median wall and CPU seconds of the runs
# walltime wrote to FILE.
wall() { cut -d' ' -f1 <"$1" | median; }
cpu() { cut -d' ' -f2 <"$1" | median; }
i=0
while [ $i -lt "$count" ]; do
	walltime "$tmp/mcpconform" run --no-color >>"$tmp/ref.txt"
	walltime "$tmp/mcpconform" run --no-color -- "$tmp/mcpconform" reference >>"$tmp/refproc.txt"
	i=$((i + 1))
done
echo "| run time, embedded reference | $(wall "$tmp/ref.txt") s ($(cpu "$tmp/ref.txt") CPU-s) | as processes $(wall "$tmp/refproc.txt") s ($(cpu "$tmp/refproc.txt") CPU-s) | | <= 0.5 s |"
everything=testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js
if [ -f "$everything" ] && command -v node >/dev/null; then
	runs=$(((count + 1) / 2))
	i=0
	while [ $i -lt "$runs" ]; do
		walltime "$tmp/mcpconform" run --no-color -- node "$everything" stdio >>"$tmp/ev.txt"
		i=$((i + 1))
	done
	echo "| run time, server-everything | $(wall "$tmp/ev.txt") s ($(cpu "$tmp/ev.txt") CPU-s) | reference $(wall "$tmp/ref.txt") s | | <= 8 s |"
else
	echo "server-everything is not installed: run make deps" >&2
	exit 1
fi
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
