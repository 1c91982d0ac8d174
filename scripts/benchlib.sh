# benchlib.sh holds what bench.sh and benchservers.sh share; they source
# it from the repository's root with $me set to their name.

everything=testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js
if ! [ -f "$everything" ] || ! command -v node >/dev/null; then
	echo "$me: server-everything is not installed: run make deps" >&2
	exit 1
fi
# everything_flags are the tools of server-everything a real-server run
# may call, as the real-server test allows them.
# shellcheck disable=SC2034 # used by the scripts that source this file
everything_flags="--allow-calls trigger-sampling-request --allow-calls trigger-elicitation-request --allow-calls trigger-url-elicitation --allow-calls simulate-research-query"
if ! [ -x /usr/bin/time ]; then
	echo "$me: GNU time is missing: apt-get install time" >&2
	exit 1
fi

# median reads numbers, one a line, and prints their median.
median() {
	sort -g | awk '{v[NR] = $1} END {if (NR == 0) {print "?"} else if (NR % 2) {print v[(NR + 1) / 2]} else {print (v[NR / 2] + v[NR / 2 + 1]) / 2}}'
}

# timed FILE CMD... appends to FILE the wall seconds, CPU seconds (user and
# system, the processes it started included) and peak RSS in MiB (of its
# largest process) of one run of CMD, whose output goes to $tmp/last.out.
# Its exit status, 1 for a server that is not conformant, is not an error.
timed() {
	f=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/last.out" 2>&1 || [ $? -eq 1 ]
	# (GNU time puts "Command exited with non-zero status N" first.)
	tail -n 1 "$tmp/time" | awk '{printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024}' >>"$f"
}
# wall, cpu and rss FILE print the medians of the runs timed wrote to FILE.
wall() { cut -d' ' -f1 <"$1" | median | xargs printf '%.2f'; }
cpu() { cut -d' ' -f2 <"$1" | median | xargs printf '%.2f'; }
rss() { cut -d' ' -f3 <"$1" | median | xargs printf '%.0f'; }

# serve_everything_http starts server-everything in streamableHttp mode on
# a free port of 127.0.0.1 (loopback.mjs keeps it there), waits until it
# listens, and sets url to its endpoint and evpid to its process, which
# the EXIT trap kills.
serve_everything_http() {
	port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
	PORT=$port node --import ./testdata/npm/loopback.mjs "$everything" streamableHttp >"$tmp/everything-http.log" 2>&1 &
	evpid=$!
	trap 'kill "$evpid" 2>/dev/null; rm -rf "$tmp"' EXIT
	until node -e "require('net').connect($port, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))"; do
		kill -0 "$evpid" || { cat "$tmp/everything-http.log" >&2; exit 1; }
		sleep 0.2
	done
	url=http://127.0.0.1:$port/mcp
}

# install_peers [PROGRAM...] sets peers to the bench-only npm project (the
# official suite, the Node it needs and the wider corpus's servers,
# pinned), and installs it on first use, or when one of the PROGRAMs it
# should provide is missing.
install_peers() {
	peers=testdata/npm-bench
	for p in node "$@"; do
		if ! [ -e "$peers/node_modules/.bin/$p" ]; then
			(cd "$peers" && npm ci --no-audit --no-fund >/dev/null)
			return
		fi
	done
}

# build_ref REF builds the binary of commit REF as $tmp/old and sets
# oldname to REF's short name.
build_ref() {
	mkdir "$tmp/old-src"
	git archive "$1" | tar -x -C "$tmp/old-src"
	(cd "$tmp/old-src" && go build -o "$tmp/old" ./cmd/mcpconform)
	oldname=$(git rev-parse --short "$1")
}

# wrap NAME CMD... writes $tmp/NAME.sh, which runs CMD (with its own
# arguments after) and counts its starts in $tmp/NAME.starts: the same
# way for every binary, whose reports may not count them.
wrap() {
	name=$1
	shift
	{
		echo '#!/bin/sh'
		echo "echo >>\"$tmp/$name.starts\""
		printf 'exec'
		printf ' "%s"' "$@"
		echo ' "$@"'
	} >"$tmp/$name.sh"
	chmod +x "$tmp/$name.sh"
}

# once_counted BIN SERVER [FLAGS...] runs $tmp/BIN against the wrapped
# SERVER, keeps its JSON report as $tmp/BIN-SERVER.json and appends "wall
# cpu starts" of the run to $tmp/BIN-SERVER.txt.
once_counted() {
	bin=$1 srv=$2
	shift 2
	: >"$tmp/$srv.starts"
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$tmp/$bin" run --no-color --json "$tmp/$bin-$srv.json" "$@" -- "$tmp/$srv.sh" >"$tmp/last.out" 2>&1 || [ $? -eq 1 ]
	starts=$(wc -l <"$tmp/$srv.starts")
	# The last line: GNU time puts "Command exited with non-zero status"
	# before it.
	tail -n 1 "$tmp/time" | awk -v s="$starts" '{printf "%.2f %.2f %d\n", $1, $2 + $3, s}' >>"$tmp/$bin-$srv.txt"
}

# col FILE N prints the median of column N of FILE.
col() { cut -d' ' -f"$2" <"$1" | median; }
