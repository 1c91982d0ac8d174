package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/vectors/transcript"
)

func TestMain(m *testing.M) { fixturebin.MainTrampoline(m) }

// minTranscripts is the least number of transcripts vectors/transcripts
// holds, so that a lost file fails the test.
const minTranscripts = 60

// received is one line the server sent during a transcript run, with what
// the schema test needs to pick its definition.
type received struct {
	transcript string
	revision   string
	raw        []byte
	methods    map[string]string // method of each request sent so far, by id key
}

// recorder wraps a runner process and keeps every inbound line and the
// method of every request sent, by id.
type recorder struct {
	p        *runner.Process
	t        *transcript.Transcript
	methods  map[string]string
	received []received
}

func (r *recorder) SendRaw(line []byte) error {
	var one map[string]json.RawMessage
	var many []map[string]json.RawMessage
	if json.Unmarshal(line, &one) == nil {
		many = append(many, one)
	} else {
		json.Unmarshal(line, &many)
	}
	for _, m := range many {
		var method string
		if json.Unmarshal(m["method"], &method) == nil && m["id"] != nil {
			var p struct {
				Task json.RawMessage `json:"task"`
			}
			if method == protocol.MethodToolsCall && json.Unmarshal(m["params"], &p) == nil && len(p.Task) > 0 && p.Task[0] == '{' {
				method = taskAugmentedCall // answered with a CreateTaskResult
			}
			r.methods[protocol.IDKey(m["id"])] = method
		}
	}
	return r.p.SendRaw(line)
}

func (r *recorder) keep(rc runner.Received) {
	methods := make(map[string]string, len(r.methods))
	for k, v := range r.methods {
		methods[k] = v
	}
	r.received = append(r.received, received{
		transcript: r.t.ID, revision: r.t.Revision,
		raw: append([]byte(nil), rc.Raw...), methods: methods,
	})
}

func (r *recorder) Next(ctx context.Context, timeout time.Duration) (runner.Received, error) {
	rc, err := r.p.Next(ctx, timeout)
	if err == nil {
		r.keep(rc)
	}
	return rc, err
}

func (r *recorder) Close(ctx context.Context) runner.Exit {
	e := r.p.Close(ctx)
	for _, rc := range e.Remaining {
		r.keep(rc)
	}
	return e
}

// runResult is the outcome of one transcript.
type runResult struct {
	t        *transcript.Transcript
	err      error
	received []received
}

var (
	runOnce sync.Once
	results []runResult
	loadErr error
)

// runAll runs every embedded transcript once per test binary; the
// transcript test and the schema test share the results.
func runAll(t *testing.T) []runResult {
	t.Helper()
	// The mcpconform command, so that the transcripts run against the real
	// stdio server.
	binary := fixturebin.Build(t, "cmd/mcpconform")
	runOnce.Do(func() {
		ts, err := transcript.LoadDir(vectors.FS, "transcripts")
		if err != nil {
			loadErr = err
			return
		}
		results = make([]runResult, len(ts))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for i, tr := range ts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				results[i] = runOne(binary, tr)
			}()
		}
		wg.Wait()
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return results
}

func runOne(binary string, tr *transcript.Transcript) runResult {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := append([]string{binary, "reference"}, tr.Args...)
	p, err := runner.Start(ctx, runner.Config{
		Command: cmd,
		// Generous bounds: a loaded CI machine must not turn into failures;
		// a healthy run never waits for them.
		StartTimeout:   30 * time.Second,
		RequestTimeout: 20 * time.Second,
	})
	if err != nil {
		return runResult{t: tr, err: fmt.Errorf("start %s: %w", strings.Join(cmd, " "), err)}
	}
	rec := &recorder{p: p, t: tr, methods: map[string]string{}}
	err = transcript.Run(ctx, tr, rec)
	rec.Close(ctx) // idempotent; collects anything left
	if err != nil {
		err = fmt.Errorf("%w\nstderr:\n%s", err, p.StderrTail())
	}
	return runResult{t: tr, err: err, received: rec.received}
}

func TestTranscripts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: replays every transcript against the reference")
	}
	res := runAll(t)
	if len(res) < minTranscripts {
		t.Errorf("%d transcripts, want at least %d", len(res), minTranscripts)
	}
	for _, r := range res {
		t.Run(r.t.ID, func(t *testing.T) {
			if r.err != nil {
				t.Error(r.err)
			}
		})
	}
}

// TestTranscriptsCoverEveryRevision guards the spread of the vectors: each
// revision and both applicabilities appear.
func TestTranscriptsCoverEveryRevision(t *testing.T) {
	// The transcripts as loaded: what they cover needs no run.
	ts, err := transcript.LoadDir(vectors.FS, "transcripts")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, tr := range ts {
		count[tr.Revision]++
		count["applies:"+tr.Applies]++
	}
	for _, want := range append(append([]string{}, protocol.AllRevisions...), "applies:any", "applies:demo") {
		if count[want] == 0 {
			t.Errorf("no transcript for %s", want)
		}
	}
}
