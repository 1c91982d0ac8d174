#!/bin/sh
# bench-properties.sh measures the property tests (issue 5, "Speed"):
#   1. the black-box property phase against the reference: requests per
#      second over the whole run, detection included (target >= 1,000);
#   2. the in-process properties: total time of 1,000 cases each
#      (target: under a minute), and the mutation tests.
# Usage: scripts/bench-properties.sh [COUNT]   (benchmark runs, default 10)
set -eu
cd "$(dirname "$0")/.."
count=${1:-10}

echo "== property phase against the reference (${count} runs)"
go test -run '^$' -bench '^BenchmarkPropertyPhase$' -benchtime "${count}x" ./conformance/ |
	grep -E '^Benchmark|req/s' || true

echo "== in-process properties, 1,000 cases each"
start=$(date +%s.%N)
go test -count=1 -run '^TestPropertiesHoldOnReference$' -v ./properties/ |
	grep -E '^\s+--- |\[rapid\] OK|^(ok|FAIL)' || true
end=$(date +%s.%N)
echo "total wall time: $(echo "$end - $start" | bc) s (compile included)"

echo "== mutation tests (each property must fail on its mutant)"
go test -count=1 -run '^TestPropertiesFailOnMutants$' -v ./properties/ |
	grep -E '^\s+--- |falsified|^(ok|FAIL)' || true
