package main

import (
	"bytes"
	"testing"

	"github.com/mcpconform/mcpconform/conformance"
)

func TestStatusLine(t *testing.T) {
	var buf bytes.Buffer
	s := newStatusLine(&buf)
	s.interval = 0
	s.update(conformance.Progress{Revision: "2025-11-25", Check: "jsonrpc.method.unknown\x1b[2J", Done: 3, Total: 10})
	if got := buf.String(); got != "\r\x1b[Kmcpconform: 3/10 checks · 2025-11-25 jsonrpc.method.unknown\\x1b[2J" {
		t.Errorf("status line %q", got)
	}
	buf.Reset()
	s.clear()
	if buf.String() != "\r\x1b[K" {
		t.Errorf("clear wrote %q", buf.String())
	}
	buf.Reset()
	s.clear()
	if buf.Len() != 0 {
		t.Errorf("a second clear wrote %q", buf.String())
	}
}
