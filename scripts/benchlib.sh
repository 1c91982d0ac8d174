# benchlib.sh holds what bench.sh and benchservers.sh share; they source
# it from the repository's root with $me set to their name.

everything=testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js
if ! [ -f "$everything" ] || ! command -v node >/dev/null; then
	echo "$me: server-everything is not installed: run make deps" >&2
	exit 1
fi
if ! [ -x /usr/bin/time ]; then
	echo "$me: GNU time is missing: apt-get install time" >&2
	exit 1
fi

# median reads numbers, one a line, and prints their median.
median() {
	sort -g | awk '{v[NR] = $1} END {if (NR == 0) {print "?"} else if (NR % 2) {print v[(NR + 1) / 2]} else {print (v[NR / 2] + v[NR / 2 + 1]) / 2}}'
}
