package jsonpos

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestLineCol(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\": x\n}")
	tests := []struct {
		offset    int64
		line, col int
	}{
		{0, 1, 1},
		{1, 1, 2},
		{2, 2, 1},
		{int64(bytes.IndexByte(data, 'x')), 3, 8},
		{-5, 1, 1},
		{1 << 20, 4, 2},
	}
	for _, tt := range tests {
		if l, c := LineCol(data, tt.offset); l != tt.line || c != tt.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", tt.offset, l, c, tt.line, tt.col)
		}
	}
}

func TestError(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"syntax", "{\n  \"a\": 1,\n  \"b\": x\n}", "f.json:3:8: invalid character 'x'"},
		{"type", "{\n  \"a\": \"one\"\n}", "f.json:2:13: json: cannot unmarshal string"},
		{"unknown field", "{\n  \"a\": 1,\n  \"c\": 2\n}", `f.json:3:3: json: unknown field "c"`},
		{"unknown field after a value", "{\n  \"a\": 1, \"b\": \"c\",\n  \"c\" : 2\n}", `f.json:3:3: json: unknown field "c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tt.doc))
			dec.DisallowUnknownFields()
			var v struct {
				A int
				B string
			}
			err := dec.Decode(&v)
			if err == nil {
				t.Fatal("decoded without error")
			}
			got := Error("f.json", []byte(tt.doc), err, dec.InputOffset()).Error()
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("got %q, want prefix %q", got, tt.want)
			}
		})
	}
}
