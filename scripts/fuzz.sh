#!/usr/bin/env bash
# Fuzzes each fuzz target of the module for FUZZTIME (default 60s), one at a
# time, and fails on the first that finds a crash. New interesting inputs
# stay in the Go build cache; a failing input is written under the target's
# testdata/fuzz/ directory, where it becomes a seed of the regular tests.
#
#   scripts/fuzz.sh            every target, 60s each
#   FUZZTIME=10s scripts/fuzz.sh FuzzParseMessage
set -euo pipefail
cd "$(dirname "$0")/.."
time=${FUZZTIME:-60s}
targets=(
	"./runner FuzzReadStdout"
	"./runner FuzzScanHead"
	"./protocol FuzzParseMessage"
	"./reference FuzzValidate"
	"./reference FuzzRepairArguments"
)
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
		continue
	fi
	echo "== $name ($pkg, $time)"
	# -parallel 1: the machine is shared; a fuzz worker per core would
	# starve the rest. GOMEMLIMIT keeps a runaway input from taking the box;
	# a short minimization keeps one large new input from eating the time.
	GOMEMLIMIT=1GiB go test "$pkg" -run "^$" -fuzz "^${name}\$" -fuzztime "$time" -fuzzminimizetime 5s -parallel 1
done
echo "fuzz: no failures"
