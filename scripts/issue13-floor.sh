#!/bin/sh
# issue13-floor.sh measures, on the code issue 13 was filed against, the
# figures the issue quotes, to show which ping floor its target names.
#
# Issue 13 reads: "3,389 requests/s against the reference through
# mcpconform run, against a ping floor of 28,956 req/s for the same server
# (0.14)" and "A run against the reference: 0.81 s wall". The code it
# measured is 36c8295, the last commit before the issue's first change
# (184aff8, reference.Compile): its reference.Validate still compiles on
# every call and its BenchmarkPropertyPhase still targets the mutant, as the
# issue says. This script builds that commit in a temporary worktree and
# measures, side by side on this machine:
#   - the property phase as the issue did (the requests of
#     `run --only 'property.*'` over the run's wall time), and a whole run;
#   - the ping floor of that commit's `mcpconform reference` through that
#     commit's runner, two ways: one ping at a time (the round trip) and 64
#     pipelined (the transport's throughput).
# Whichever floor lands near 28,956 is the one the issue's 0.5 is a ratio
# to. Nothing of the worktree is kept. Usage: scripts/issue13-floor.sh
set -eu
cd "$(dirname "$0")/.."
rev=36c8295
tmp=$(mktemp -d)
git worktree add --quiet --detach "$tmp/old" "$rev"
trap 'git worktree remove --force "$tmp/old"; rm -rf "$tmp"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
(cd "$tmp/old" && go build -o "$tmp/mcpconform" ./cmd/mcpconform)

for i in 1 2 3; do
	start=$(date +%s.%N)
	"$tmp/mcpconform" run --no-color >/dev/null 2>&1 || true
	end=$(date +%s.%N)
	"$tmp/mcpconform" run --no-color --only 'property.*' --json "$tmp/prop.json" >/dev/null 2>&1 || true
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
n = sum((x.get("metrics") or {}).get("requests", 0) for x in r["results"])
print("run %.2f s wall; property phase %d requests in %.0f ms: %.0f req/s" % (float(sys.argv[2]), n, r["durationMs"], n / r["durationMs"] * 1000))
' "$tmp/prop.json" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" | tee -a "$tmp/phase.txt"
done

# The floors, through the old runner, against the old server.
cat >"$tmp/old/runner/issue13_floor_test.go" <<'GO'
package runner

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestIssue13Floor(t *testing.T) {
	ctx := context.Background()
	p, err := Start(ctx, Config{Command: []string{os.Getenv("ISSUE13_SERVER"), "reference"}, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if _, err := p.Request(ctx, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "floor", "version": "1"}}); err != nil {
		t.Fatal(err)
	}
	if err := p.SendRaw([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		start := time.Now()
		for range 3000 {
			if _, err := p.Request(ctx, "ping", nil); err != nil {
				t.Fatal(err)
			}
		}
		rtt := 3000 / time.Since(start).Seconds()
		start = time.Now()
		n, sent, got := 10000, 0, 0
		for got < n {
			for sent < n && sent-got < 64 {
				if err := p.SendRaw([]byte(`{"jsonrpc":"2.0","id":"p` + strconv.Itoa(sent) + `","method":"ping"}`)); err != nil {
					t.Fatal(err)
				}
				sent++
			}
			if _, err := p.Next(ctx, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			got++
		}
		fmt.Printf("ping floor: one at a time %.0f req/s; 64 pipelined %.0f req/s\n", rtt, float64(n)/time.Since(start).Seconds())
	}
}
GO
(cd "$tmp/old" && ISSUE13_SERVER="$tmp/mcpconform" go test -count=1 -run TestIssue13Floor -v ./runner/ | grep '^ping floor' | tee "$tmp/floor.txt")
# The ratio does not depend on the machine's speed as the rates do: the
# issue's 0.14 is the phase over the floor it measured.
awk '
	FNR == NR { phase += $(NF - 1); np++; next }
	{ rtt += $7; pipe += $11; nf++ }
	END {
		phase /= np; rtt /= nf; pipe /= nf
		printf "phase %.0f req/s over the floors: %.2f of one ping at a time, %.2f of 64 pipelined\n", phase, phase / rtt, phase / pipe
	}' "$tmp/phase.txt" "$tmp/floor.txt"
echo "issue 13: run 0.81 s; property phase 3,389 req/s; ping floor 28,956 req/s; ratio 0.14"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
