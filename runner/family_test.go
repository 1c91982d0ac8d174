package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/proctest"
	"github.com/mcpconform/mcpconform/internal/serverexec"
	"pgregory.net/rapid"
)

// TestEscapedDescendantKilled proves that Close ends a descendant that
// cleared its environment (so has no token), left the process group and the
// session, and whose parent exited: the server's own tree still holds it, as
// the server is a child subreaper.
func TestEscapedDescendantKilled(t *testing.T) {
	ctx := testCtx(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	p := startHostile(t, Config{Env: []string{"HOSTILE_PIDFILE=" + pidfile}}, "escape")
	wantPing(t, ctx, p) // the server answers once the sleeper runs
	if runtime.GOOS == "linux" {
		// The server is the fixture, executed in place by the runner's
		// start, which leaves no trace in its environment.
		if exe, err := os.Readlink("/proc/" + strconv.Itoa(p.Pid()) + "/exe"); err != nil || exe != hostileBin(t) {
			t.Errorf("the server runs %q (%v), want %s", exe, err, hostileBin(t))
		}
		if env, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/environ"); err != nil || strings.Contains(string(env), serverexec.Var) {
			t.Errorf("the server's environment holds %s (%v)", serverexec.Var, err)
		}
	}
	pids, err := proctest.ReadPids(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	var running []int
	for _, pid := range pids {
		if pid != p.Pid() && proctest.Running(pid) && !slices.Contains(running, pid) {
			running = append(running, pid)
		}
	}
	if len(running) != 1 {
		t.Fatalf("recorded pids %v, running besides the server %v: want the sleeper alone", pids, running)
	}
	sleeper := running[0]
	if slices.Contains(Descendants(p.Token()), sleeper) {
		t.Fatalf("the sleeper %d carries the token: the fixture did not clear its environment", sleeper)
	}
	if e, ok := readStat(sleeper); runtime.GOOS == "linux" && (!ok || e.ppid != p.Pid()) {
		t.Errorf("the sleeper's parent is %d, want the server %d (a child subreaper)", e.ppid, p.Pid())
	}
	p.Close(ctx)
	for _, pid := range pids {
		if proctest.Running(pid) {
			t.Errorf("process %d survived Close", pid)
			proctest.Kill(pid)
		}
	}
}

// TestAttribute checks which processes of a process table belong to a
// server: by token, by the leader's and the known members' identity (pid and
// start time, so a reused pid is not taken), and by descent from them.
func TestAttribute(t *testing.T) {
	const self = 100
	leader := procEntry{pid: 200, ppid: self, start: 50}
	tests := []struct {
		name   string
		table  []procEntry
		leader procEntry
		known  map[int]uint64
		want   []int
	}{
		{
			name: "the leader's tree, whatever the environment",
			table: []procEntry{
				{pid: self, ppid: 1, start: 10},
				leader,
				{pid: 201, ppid: 200, start: 51},
				{pid: 202, ppid: 201, start: 52},
				{pid: 300, ppid: self, start: 60}, // another server
				{pid: 301, ppid: 300, start: 61},
			},
			leader: leader,
			want:   []int{200, 201, 202},
		},
		{
			name: "the leader's pid reused: nothing of its tree",
			table: []procEntry{
				{pid: 200, ppid: 1, start: 90},
				{pid: 201, ppid: 200, start: 91},
			},
			leader: leader,
			want:   nil,
		},
		{
			name: "an orphan re-parented to the suite, known from an earlier scan",
			table: []procEntry{
				{pid: 202, ppid: self, start: 52},
				{pid: 203, ppid: 202, start: 53},
				{pid: 300, ppid: self, start: 60}, // not known: not ours
			},
			leader: leader,
			known:  map[int]uint64{200: 50, 201: 51, 202: 52},
			want:   []int{202, 203},
		},
		{
			name: "a known pid reused by another process",
			table: []procEntry{
				{pid: 202, ppid: self, start: 70},
				{pid: 203, ppid: 202, start: 71},
			},
			leader: leader,
			known:  map[int]uint64{202: 52},
			want:   nil,
		},
		{
			name: "the token, in another session and with another parent",
			table: []procEntry{
				{pid: 400, ppid: 1, start: 80, token: true},
				{pid: 401, ppid: 400, start: 81},
				{pid: self, ppid: 1, start: 10, token: true}, // never the suite
			},
			want: []int{400, 401},
		},
		{
			name: "a child older than its parent is an earlier holder's",
			table: []procEntry{
				leader,
				{pid: 201, ppid: 200, start: 40},
			},
			leader: leader,
			want:   []int{200},
		},
		{
			name: "zombies are members, to be reaped",
			table: []procEntry{
				leader,
				{pid: 201, ppid: 200, start: 51, state: 'Z'},
			},
			leader: leader,
			want:   []int{200, 201},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for _, e := range attribute(tt.table, tt.leader, tt.known, self) {
				got = append(got, e.pid)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("attribute = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestParseStat reads the fields after a command name holding parentheses
// and spaces.
func TestParseStat(t *testing.T) {
	stat := "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1000 10\n"
	e, ok := parseStat(4242, []byte(stat))
	if !ok || e != (procEntry{pid: 4242, ppid: 17, start: 987654, state: 'S'}) {
		t.Errorf("parseStat = %+v, %v", e, ok)
	}
	if _, ok := parseStat(1, []byte("1 (x) S 0")); ok {
		t.Error("parseStat accepted a short stat")
	}
	if e, ok := readStat(os.Getpid()); !ok || e.ppid != os.Getppid() || e.start == 0 {
		t.Errorf("readStat(self) = %+v, %v", e, ok)
	}
}

// TestParseStatMatchesSplit holds parseStat to splitting the fields after
// the command name with bytes.TrimLeft and bytes.IndexAny, as it did before:
// the same entry for stat lines of any spacing, command name and fields,
// short ones and damaged ones included.
func TestParseStatMatchesSplit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sep := rapid.SampledFrom([]string{" ", "  ", "\n", " \n"})
		fields := strings.Fields("S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1000 10")
		fields = fields[:rapid.IntRange(0, len(fields)).Draw(t, "kept")]
		for range rapid.IntRange(0, 3).Draw(t, "changes") {
			if len(fields) > 0 {
				fields[rapid.IntRange(0, len(fields)-1).Draw(t, "at")] = rapid.SampledFrom([]string{"R", "Z", "-1", "987654", "18446744073709551616", "x", "SS", "+3", ""}).Draw(t, "field")
			}
		}
		comm := rapid.SampledFrom([]string{"x", "a (b) c", "a)", "", "sp ace"}).Draw(t, "comm")
		line := "4242 (" + comm + ")"
		for _, f := range fields {
			line += sep.Draw(t, "sep") + f
		}
		line += rapid.SampledFrom([]string{"", "\n", " "}).Draw(t, "end")
		got, gotOK := parseStat(4242, []byte(line))
		want, wantOK := parseStatSplit(4242, []byte(line))
		if got != want || gotOK != wantOK {
			t.Fatalf("%q: parseStat = %+v, %v; splitting gives %+v, %v", line, got, gotOK, want, wantOK)
		}
	})
}

// parseStatSplit is parseStat as it was written first.
func parseStatSplit(pid int, stat []byte) (procEntry, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return procEntry{}, false
	}
	var fields [20][]byte
	n := 0
	for rest := stat[i+1:]; n < len(fields); n++ {
		rest = bytes.TrimLeft(rest, " \n")
		j := bytes.IndexAny(rest, " \n")
		if j < 0 {
			j = len(rest)
		}
		if j == 0 {
			break
		}
		fields[n], rest = rest[:j], rest[j:]
	}
	if n < len(fields) || len(fields[0]) != 1 {
		return procEntry{}, false
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	start, err2 := strconv.ParseUint(string(fields[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return procEntry{}, false
	}
	return procEntry{pid: pid, ppid: ppid, start: start, state: fields[0][0]}, true
}

// TestReadProcsReadsTheTokenOfChildren proves that a scan of a program
// that adopts orphans still reads the token of its own children (a server,
// or the orphan of one that exited), and of nothing whose parent it saw,
// which the process tree decides.
func TestReadProcsReadsTheTokenOfChildren(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{}, "grandchild")
	defer p.Close(ctx)
	wantPing(t, ctx, p)
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	if !adopting.Load() {
		t.Fatal("this program did not become a child subreaper when it started the server")
	}
	var server, child *procEntry
	for _, e := range readProcs(p.Token(), 0, false) {
		switch {
		case e.pid == p.Pid():
			server = &e
		case e.ppid == p.Pid():
			child = &e
		}
	}
	if server == nil || !server.token {
		t.Fatalf("the server %d (a child of this program) is %+v, want it marked by its token", p.Pid(), server)
	}
	if child == nil || child.token {
		t.Errorf("the server's child is %+v: want it found, its environment unread (its parent decides)", child)
	}
	for _, e := range readProcs(p.Token(), 0, true) {
		if e.ppid == p.Pid() && !e.token {
			t.Errorf("with every set, the child %d is not marked by its token", e.pid)
		}
	}
}

// BenchmarkReadProcs measures a scan of /proc that reads the environment
// of every process (every) against one that reads it where the process
// tree does not decide (tree): the cost of a Close on a busy machine,
// where most processes are other programs'.
func BenchmarkReadProcs(b *testing.B) {
	for _, every := range []bool{true, false} {
		name := "tree"
		if every {
			name = "every"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				readProcs("x", 0, every)
			}
		})
	}
}
