#!/bin/sh
# hostile.sh prints, as a Markdown table, how long `mcpconform run` takes
# with default flags against each hostile server of
# internal/fixtures/hostile, with the exit code, the report's closing line,
# how many processes the fixture started (each records its pid in
# HOSTILE_PIDFILE) outlived the run, and how many were left unreaped
# zombies. It uses the binaries users run, built here, and prints the load
# average before and after on stderr, since the machine may be shared.
# scripts/bench.sh runs it for docs/figures.md.
# Usage: scripts/hostile.sh [MODE...]   (default: every mode below)
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/mcpconform" ./cmd/mcpconform
go build -o "$tmp/hostile" ./internal/fixtures/hostile

modes=${*:-hang init-hang tools-hang ignore-eof linger hugeline junkline deep string-ids badutf8 banner flood crash grandchild setsid escape escape-exit}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)" >&2
echo "| hostile server | wall | exit | closing line | left running |"
echo "|---|---|---|---|---|"
for m in $modes; do
	pids="$tmp/$m.pids"
	: >"$pids"
	start=$(date +%s.%N)
	set +e
	HOSTILE_PIDFILE="$pids" "$tmp/mcpconform" run -- "$tmp/hostile" -mode "$m" -pidfile "$pids" >"$tmp/$m.out" 2>"$tmp/$m.err"
	code=$?
	set -e
	end=$(date +%s.%N)
	# A zombie runs nothing, but one left unreaped is counted apart: the
	# suite reaps what it adopted, and init may not (in a container).
	left=0 zombies=0
	for p in $(sort -u "$pids"); do
		state=$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null) || continue
		case $state in
		Z) zombies=$((zombies + 1)) ;;
		?) left=$((left + 1)); kill -9 "$p" 2>/dev/null || true ;;
		esac
	done
	[ "$zombies" = 0 ] || left="$left ($zombies unreaped)"
	last=$(tail -n 1 "$tmp/$m.out")
	[ -n "$last" ] || last="(stderr) $(tail -n 1 "$tmp/$m.err")"
	printf '| `%s` | %.1f s | %d | %s | %s |\n' "$m" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" "$code" "$(printf '%s' "$last" | cut -c1-110 | sed 's/|/\\|/g')" "$left"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
