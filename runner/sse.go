package runner

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// sseEvent is one event of a text/event-stream, as the WHATWG
// specification's event stream interpretation dispatches it.
type sseEvent struct {
	typ  string // the event field; "" for the default "message"
	id   string // the id field of this event, "" when it had none
	data []byte // the data lines joined with "\n"; nil for an event without data
	// dataSize is the size of the data in full; when tooLong, data holds
	// only its first bytes.
	dataSize int
	tooLong  bool
	size     int // bytes of the stream the event took, blank line included
}

// readSSE reads an event stream and calls onEvent for every event it
// dispatches (including those with an empty data buffer, whose data is
// nil, so that their ids count) until the stream ends, onEvent returns
// false or reading fails. An event's data longer than limit is cut to its
// first keptHead bytes and marked tooLong; memory stays bounded whatever
// the server sends. Lines end with LF or CR LF; comments are skipped. A
// clean end of the stream returns nil.
func readSSE(r io.Reader, limit int, onEvent func(sseEvent) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var ev sseEvent
	var data []byte
	hasData := false
	reset := func() {
		ev = sseEvent{}
		data = data[:0]
		hasData = false
	}
	for {
		line, n, cut, err := readSSELine(br, limit)
		ev.size += n
		if err != nil && n == 0 {
			if errors.Is(err, io.EOF) {
				return nil // an event not ended by a blank line is discarded
			}
			return err
		}
		if len(line) == 0 && !cut {
			d := data
			if len(d) > 0 && d[len(d)-1] == '\n' {
				d = d[:len(d)-1]
			}
			// An event whose data is empty dispatches nothing (a
			// server's priming event is one); its id still counts.
			hasData = hasData && (len(d) > 0 || ev.tooLong)
			if hasData || ev.id != "" {
				out := ev
				if hasData {
					if ev.tooLong {
						d = d[:min(len(d), keptHead)]
					}
					out.dataSize = ev.dataSize - 1
					out.data = append([]byte{}, d...)
				}
				if !onEvent(out) {
					return nil
				}
			}
			reset()
			if err != nil {
				return nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value, _ = bytes.CutPrefix(value, []byte(" "))
		switch string(field) {
		case "":
			// A comment.
		case "data":
			hasData = true
			if cut {
				ev.dataSize += n
			} else {
				ev.dataSize += len(value) + 1
			}
			if ev.tooLong || cut || len(data)+len(value)+1 > limit {
				ev.tooLong = true
				if len(data) < keptHead {
					data = append(data, value[:min(len(value), keptHead-len(data))]...)
				}
				break
			}
			data = append(append(data, value...), '\n')
		case "event":
			ev.typ = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.id = string(value)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readSSELine reads one line without its end (LF or CR LF), keeping at
// most limit bytes of it (cut then says the rest was dropped); n is the
// number of bytes consumed.
func readSSELine(br *bufio.Reader, limit int) (line []byte, n int, cut bool, err error) {
	for {
		frag, ferr := br.ReadSlice('\n')
		n += len(frag)
		if !cut {
			if len(line)+len(frag) > limit+2 {
				cut = true
				line = append(line, frag[:max(0, min(len(frag), keptHead-len(line)))]...)
			} else {
				line = append(line, frag...)
			}
		}
		if errors.Is(ferr, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, n, cut, ferr
	}
}
