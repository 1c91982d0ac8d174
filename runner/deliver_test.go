package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"pgregory.net/rapid"
)

// TestQueueMatchesSlice holds the queue, whose taken head is resliced off
// and which moves back to its array's start instead of growing
// (enqueueLocked), to a plain slice that copies: the same items in the same
// order after any sequence of arrivals and takes, at the head or inside.
func TestQueueMatchesSlice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := &Process{cfg: Config{MaxPending: 1 << 30, MaxBufferedBytes: 1 << 30}, changed: make(chan struct{})}
		var model []Received
		n := 0
		for range rapid.IntRange(0, 300).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 5:
				r := Received{Raw: []byte(strconv.Itoa(n))}
				n++
				p.enqueueLocked(r)
				model = append(model, r)
			case len(model) == 0:
			case op < 9:
				p.dequeueLocked(0)
				model = model[1:]
			default:
				i := rapid.IntRange(0, len(model)-1).Draw(t, "at")
				p.dequeueLocked(i)
				model = append(append([]Received(nil), model[:i]...), model[i+1:]...)
			}
			if len(p.queue) != len(model) {
				t.Fatalf("queue holds %d items, want %d", len(p.queue), len(model))
			}
			for i := range model {
				if !bytes.Equal(p.queue[i].Raw, model[i].Raw) {
					t.Fatalf("item %d is %s, want %s", i, p.queue[i].Raw, model[i].Raw)
				}
			}
			// What the queue no longer holds is not kept alive by its array.
			for i := len(p.queue); i < cap(p.queue); i++ {
				if p.queue[:cap(p.queue)][i].Raw != nil {
					t.Fatalf("slot %d past the queue's end still holds %s", i, p.queue[:cap(p.queue)][i].Raw)
				}
			}
		}
	})
}

// TestDeliveredLineIsItsTranscript checks the one copy deliver makes of a
// line: the received item's Raw and the transcript's text are the line's
// bytes, whatever the reader's buffer holds later.
func TestDeliveredLineIsItsTranscript(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var lines [][]byte
		for i := range rapid.IntRange(1, 20).Draw(t, "lines") {
			var l []byte
			switch rapid.IntRange(0, 2).Draw(t, "kind") {
			case 0:
				l = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"x":%q}}`, i, rapid.String().Draw(t, "x"))
			case 1:
				l = bytes.ReplaceAll(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes"), []byte("\n"), nil)
			default:
				l = []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
			}
			lines = append(lines, l)
		}
		p, got := readAllOf(t, append(bytes.Join(lines, []byte("\n")), '\n'), 1<<20)
		var recv []TranscriptLine
		for _, l := range p.Transcript() {
			if l.Dir == "recv" {
				recv = append(recv, l)
			}
		}
		if len(got) != len(lines) || len(recv) != len(lines) {
			t.Fatalf("%d lines gave %d items and %d transcript lines", len(lines), len(got), len(recv))
		}
		for i, l := range lines {
			if !bytes.Equal(got[i].Raw, l) || recv[i].Text != string(l) {
				t.Fatalf("line %q was received as %q and transcribed as %q", l, got[i].Raw, recv[i].Text)
			}
		}
	})
}

// TestClassifyLineMatchesClassify holds the reader's shortcuts for a
// response that repeats the last long result or one the run holds
// interned (classifyLine) to classify,
// which scans every line: the same item for lines that repeat a result
// exactly, under ids of every kind, and for near misses of every part of
// the line (spacing, member order, a changed byte, escapes, bad UTF-8).
func TestClassifyLineMatchesClassify(t *testing.T) {
	long := `{"tools":[` + strings.Repeat(`{"name":"a","inputSchema":{"type":"object"}},`, 20) + `{"name":"z"}]}`
	// A result the run holds interned (heldResponse): the message
	// keeps it alive while the lines are classified.
	held := `{"name":"` + strings.Repeat("N", internMin) + `"}`
	keep := (&Process{}).classifyLine([]byte(`{"jsonrpc":"2.0","id":0,"result":` + held + `}`))
	defer runtime.KeepAlive(keep.Msg)
	rapid.Check(t, func(t *rapid.T) {
		results := []string{long, long + " ", `{"x":"` + strings.Repeat("é", 300) + `"}`, `[` + strings.Repeat(`1,`, 300) + `2]`, `"` + strings.Repeat("s", 600) + `"`, held, held + " "}
		ids := []string{"1", `"` + "\xff" + `"`, `"r-1"`, `"\q"`, "01", `"\u00"`, "-7", `"\`, "\"a\tb\"", "-", `"é"`, `""`, "0", "-0", "1.5", "123456789012345678901234567890", "1e3", `"a\"b"`, `"\u0041"`, "null", "true", `{"a":1}`, " 2"}
		p := &Process{}
		p.classifyLine([]byte(`{"jsonrpc":"2.0","id":0,"result":` + rapid.SampledFrom(results).Draw(t, "first") + `}`))
		for range rapid.IntRange(1, 12).Draw(t, "lines") {
			result := rapid.SampledFrom(results).Draw(t, "result")
			id := rapid.SampledFrom(ids).Draw(t, "id")
			line := `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
			switch rapid.IntRange(0, 14).Draw(t, "variant") {
			case 0:
				line = strings.Replace(line, `,"result"`, `, "result"`, 1)
			case 1:
				line = `{"id":` + id + `,"jsonrpc":"2.0","result":` + result + `}`
			case 2:
				i := rapid.IntRange(0, len(line)-1).Draw(t, "at")
				line = line[:i] + string(rapid.Byte().Draw(t, "byte")) + line[i+1:]
			case 3:
				line = line[:rapid.IntRange(0, len(line)-1).Draw(t, "cut")]
			case 4:
				line += " "
			case 5:
				line = strings.Replace(line, `"2.0"`, `"2.1"`, 1)
			case 6:
				line = strings.Replace(line, `}`, `,"error":null}`, 1)
			case 7:
				line = line[:len(line)-1] + rapid.SampledFrom([]string{"]", " ", "}}", ""}).Draw(t, "end")
			}
			raw := []byte(line)
			got, want := p.classifyLine(raw), classify(raw)
			if !bytes.Equal(got.Raw, want.Raw) || fmt.Sprint(got.Problem) != fmt.Sprint(want.Problem) || !reflect.DeepEqual(got.Msg, want.Msg) {
				t.Fatalf("line %.120q…: classifyLine gives id %s, result of %d bytes (%v); classify %+v (%v)", line, msgID(got.Msg), msgResult(got.Msg), got.Problem, msgID(want.Msg), want.Problem)
			}
		}
	})
	// The shortcut is taken for the case it is for.
	p := &Process{}
	first := []byte(`{"jsonrpc":"2.0","id":1,"result":` + long + `}`)
	again := []byte(`{"jsonrpc":"2.0","id":"r-2","result":` + long + `}`)
	p.classifyLine(first)
	if _, ok := repeatedResponse(again, p.repeat); !ok {
		t.Fatalf("a repeated result was scanned again")
	}
	if got, want := p.classifyLine(again), classify(again); !reflect.DeepEqual(got, want) {
		t.Fatalf("classifyLine gives %+v, classify %+v", got, want)
	}
}

func msgID(m *protocol.Message) string {
	if m == nil {
		return "(no message)"
	}
	return string(m.ID)
}

func msgResult(m *protocol.Message) int {
	if m == nil {
		return 0
	}
	return len(m.Result)
}

// TestSendBatchMatchesSendRequestString holds SendBatch to sending the same
// lines one by one with SendRequestString: the same bytes on the server's
// stdin, the same transcript, the same requests pending.
func TestSendBatchMatchesSendRequestString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var lines, keys []string
		for i := range rapid.IntRange(0, 400).Draw(t, "lines") {
			line := rapid.SampledFrom([]string{
				`{"jsonrpc":"2.0","id":%d,"method":"ping"}`,
				`{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"` + strings.Repeat("p", rapid.IntRange(0, 20000).Draw(t, "pad")) + `"}}`,
				`{"jsonrpc":"2.0","id":%d,`,
				``,
			}).Draw(t, "line")
			key := ""
			if strings.Contains(line, "%d") {
				line = fmt.Sprintf(line, i)
				key = strconv.Itoa(i)
			}
			lines, keys = append(lines, line), append(keys, key)
		}
		one, batch := sendTo(t, func(p *Process) error {
			for i := range lines {
				if err := p.SendRequestString(lines[i], keys[i]); err != nil {
					return err
				}
			}
			return nil
		}), sendTo(t, func(p *Process) error {
			n, err := p.SendBatch(lines, keys)
			if n != len(lines) {
				t.Fatalf("SendBatch wrote %d of %d lines", n, len(lines))
			}
			return err
		})
		if one.written != batch.written {
			t.Fatalf("SendBatch wrote %d bytes, one by one %d", len(batch.written), len(one.written))
		}
		if !reflect.DeepEqual(one.transcript, batch.transcript) || !reflect.DeepEqual(one.pending, batch.pending) {
			t.Fatalf("SendBatch gives transcript %v and pending %v; one by one %v and %v", batch.transcript, batch.pending, one.transcript, one.pending)
		}
	})
}

// sent is what sendTo saw.
type sent struct {
	written    string
	transcript []string
	pending    map[string]bool
	// outstanding is the ids of requests sent with Send.
	outstanding map[string]bool
}

// sendTo has send write to a Process whose stdin is a pipe it reads, and
// returns what was written, the transcript (without times) and the ids
// pending.
func sendTo(t *rapid.T, send func(*Process) error) sent {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{cfg: Config{RequestTimeout: time.Minute}, stdin: w, rawPending: map[string]bool{}, outstanding: map[string]bool{}, usedIDs: map[string]bool{}, changed: make(chan struct{})}
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		read <- b
	}()
	if err := send(p); err != nil {
		t.Fatal(err)
	}
	w.Close()
	out := sent{written: string(<-read), pending: p.rawPending, outstanding: p.outstanding}
	r.Close()
	for _, l := range p.Transcript() {
		out.transcript = append(out.transcript, l.Dir+" "+l.Text)
	}
	return out
}

// TestSendMatchesSendRaw holds Send, which does not parse the line it
// encoded for a request id, to what it did before: mark the request
// outstanding, then send the encoding as a raw line (which is parsed).
func TestSendMatchesSendRaw(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var ms []*protocol.Message
		for i := range rapid.IntRange(0, 20).Draw(t, "messages") {
			m := &protocol.Message{JSONRPC: "2.0"}
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				m.ID, m.Method = json.RawMessage(strconv.Itoa(i)), "ping"
			case 1:
				m.ID, m.Method, m.Params = json.RawMessage(strconv.Quote("r-"+strconv.Itoa(i))), "tools/call", json.RawMessage(`{"name":"x"}`)
			case 2:
				m.Method = "notifications/x"
			default:
				m.ID, m.Result = json.RawMessage(strconv.Itoa(i)), json.RawMessage(`{}`)
			}
			ms = append(ms, m)
		}
		withSend, withRaw := sendTo(t, func(p *Process) error {
			for _, m := range ms {
				if err := p.Send(m); err != nil {
					return err
				}
			}
			return nil
		}), sendTo(t, func(p *Process) error {
			for _, m := range ms {
				data, _ := json.Marshal(m)
				if m.ID != nil && m.Method != "" {
					p.outstanding[protocol.IDKey(m.ID)] = true
				}
				if err := p.SendRaw(data); err != nil {
					return err
				}
			}
			return nil
		})
		if !reflect.DeepEqual(withSend, withRaw) {
			t.Fatalf("Send gives %+v; marking and SendRaw %+v", withSend, withRaw)
		}
	})
}

// TestTranscriptChunksMatchSlice holds the transcript, kept in chunks of
// transcriptChunk lines, to one slice of every line: the same lines from
// any mark, and the same count.
func TestTranscriptChunksMatchSlice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := &Process{}
		var model []TranscriptLine
		n := rapid.IntRange(0, 3*transcriptChunk+10).Draw(t, "lines")
		for i := range n {
			p.recordTextLocked("send", strconv.Itoa(i))
			model = append(model, TranscriptLine{Dir: "send", Text: strconv.Itoa(i)})
		}
		if got := p.TranscriptLen(); got != len(model) {
			t.Fatalf("TranscriptLen = %d, want %d", got, len(model))
		}
		mark := rapid.IntRange(0, n+2).Draw(t, "mark")
		got := p.TranscriptFrom(mark)
		var want []TranscriptLine
		if mark < len(model) {
			want = model[mark:]
		}
		if len(got) != len(want) || (got == nil) != (want == nil) {
			t.Fatalf("TranscriptFrom(%d) has %d lines (nil %v), want %d (nil %v)", mark, len(got), got == nil, len(want), want == nil)
		}
		for i := range want {
			if got[i].Dir != want[i].Dir || got[i].Text != want[i].Text {
				t.Fatalf("TranscriptFrom(%d)[%d] = %+v, want %+v", mark, i, got[i], want[i])
			}
		}
		if all := p.Transcript(); len(all) != len(model) || (all == nil) != (len(model) == 0) {
			t.Fatalf("Transcript has %d lines, want %d", len(all), len(model))
		}
	})
}

// TestSendRequestLinesMatchesSend holds SendRequestLines, which sends
// request lines the caller rendered in batches, to Send of each message
// the lines encode: the same process state, bytes written and transcript.
func TestSendRequestLinesMatchesSend(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var ms []*protocol.Message
		for i := range rapid.IntRange(0, 20).Draw(t, "requests") {
			m := &protocol.Message{JSONRPC: "2.0", ID: json.RawMessage(strconv.Itoa(i + 1)), Method: "tools/call"}
			if rapid.Bool().Draw(t, "params") {
				m.Params = json.RawMessage(`{"name":"x<y>","arguments":{"a":[1,"\u2028"]}}`)
			}
			ms = append(ms, m)
		}
		withSend, withLine := sendTo(t, func(p *Process) error {
			for _, m := range ms {
				if err := p.Send(m); err != nil {
					return err
				}
			}
			return nil
		}), sendTo(t, func(p *Process) error {
			var lines, keys []string
			for _, m := range ms {
				data, _ := json.Marshal(m)
				lines, keys = append(lines, string(data)), append(keys, protocol.IDKey(m.ID))
			}
			_, err := p.SendRequestLines(lines, keys)
			return err
		})
		if !reflect.DeepEqual(withSend, withLine) {
			t.Fatalf("Send gives %+v; SendRequestLines %+v", withSend, withLine)
		}
	})
}
