package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The strict reader works on a small syntax tree that remembers where each
// value and member name starts, because encoding/json reports neither the
// position of an unknown field nor of a semantic mistake.

// Value kinds of a node and of a shape.
const (
	kindObject = '{'
	kindArray  = '['
	kindString = 's'
	kindNumber = 'n'
	kindBool   = 'b'
	kindNull   = 'z'
	kindAny    = 'a' // shapes only: any JSON value
	kindEnv    = 'e' // shapes only: an object of strings
)

type node struct {
	kind       byte
	offset     int64 // where the value starts
	keys       []string
	keyOffsets []int64
	vals       []*node
	elems      []*node
}

func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// offsetOf returns the offset of the value at a path such as
// "principals[1].name", or of the deepest prefix that exists.
func (n *node) offsetOf(path string) int64 {
	cur := n
	for _, seg := range splitPath(path) {
		var next *node
		if i, err := strconv.Atoi(seg); err == nil && cur.kind == kindArray {
			if i < len(cur.elems) {
				next = cur.elems[i]
			}
		} else if cur.kind == kindObject {
			next = cur.get(seg)
		}
		if next == nil {
			break
		}
		cur = next
	}
	return cur.offset
}

func splitPath(path string) []string {
	path = strings.NewReplacer("[", ".", "]", "").Replace(path)
	var out []string
	for _, s := range strings.Split(path, ".") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func parseTree(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root, err := parseValue(dec, data)
	if err != nil {
		return nil, err
	}
	off := start(dec, data)
	if _, err := dec.Token(); err != io.EOF {
		return nil, &fieldError{offset: off, msg: "unexpected data after the profile object"}
	}
	return root, nil
}

// start returns where the next token begins: the decoder's offset is the end
// of the previous token, before separators and white space.
func start(dec *json.Decoder, data []byte) int64 {
	pos := dec.InputOffset()
	for pos < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[pos]) >= 0 {
		pos++
	}
	return pos
}

func parseValue(dec *json.Decoder, data []byte) (*node, error) {
	off := start(dec, data)
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(err, off)
	}
	n := &node{offset: off}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = kindObject
			for dec.More() {
				koff := start(dec, data)
				ktok, err := dec.Token()
				if err != nil {
					return nil, syntaxError(err, koff)
				}
				key, _ := ktok.(string)
				if n.get(key) != nil {
					return nil, &fieldError{offset: koff, field: key, msg: fmt.Sprintf("member %q appears twice", key)}
				}
				v, err := parseValue(dec, data)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, key)
				n.keyOffsets = append(n.keyOffsets, koff)
				n.vals = append(n.vals, v)
			}
		case '[':
			n.kind = kindArray
			for dec.More() {
				v, err := parseValue(dec, data)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
		}
		eoff := start(dec, data)
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, syntaxError(err, eoff)
		}
	case string:
		n.kind = kindString
	case json.Number:
		n.kind = kindNumber
	case bool:
		n.kind = kindBool
	case nil:
		n.kind = kindNull
	}
	return n, nil
}

func syntaxError(err error, off int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
		return &fieldError{offset: off, msg: "invalid JSON: " + strings.TrimPrefix(se.Error(), "json: ")}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &fieldError{offset: off, msg: "invalid JSON: unexpected end of file"}
	}
	return &fieldError{offset: off, msg: "invalid JSON: " + err.Error()}
}

// shape is the expected structure of a part of the document.
type shape struct {
	kind   byte
	fields map[string]*shape
	elem   *shape
}

var (
	str       = &shape{kind: kindString}
	strList   = &shape{kind: kindArray, elem: str}
	anyValue  = &shape{kind: kindAny}
	envShape  = &shape{kind: kindEnv}
	callShape = &shape{kind: kindObject, fields: map[string]*shape{
		"principal": str, "tool": str, "arguments": anyValue,
	}}
	profileShape = &shape{kind: kindObject, fields: map[string]*shape{
		"$schema":     str,
		"description": str,
		"command":     strList,
		"env":         envShape,
		"versionMeta": str,
		"principals": {kind: kindArray, elem: &shape{kind: kindObject, fields: map[string]*shape{
			"name": str, "description": str, "args": strList, "env": envShape,
		}}},
		"tools": {kind: kindArray, elem: &shape{kind: kindObject, fields: map[string]*shape{
			"name":    str,
			"valid":   {kind: kindArray, elem: anyValue},
			"invalid": {kind: kindArray, elem: anyValue},
		}}},
		"observe": callShape,
		"admin":   {kind: kindObject, fields: map[string]*shape{"principal": str}},
	}}
)

var kindNames = map[byte]string{
	kindObject: "an object", kindArray: "an array", kindString: "a string",
	kindNumber: "a number", kindBool: "a boolean", kindNull: "null",
}

func checkFields(n *node, s *shape, path string) error {
	want := s.kind
	if want == kindAny {
		return nil
	}
	if want == kindEnv {
		want = kindObject
	}
	if n.kind != want {
		return &fieldError{offset: n.offset, field: path, msg: fmt.Sprintf("expected %s, got %s", kindNames[want], kindNames[n.kind])}
	}
	switch s.kind {
	case kindEnv:
		for i, k := range n.keys {
			if v := n.vals[i]; v.kind != kindString {
				return &fieldError{offset: v.offset, field: join(path, k), msg: "an environment value is a string"}
			}
		}
	case kindObject:
		for i, k := range n.keys {
			fs, ok := s.fields[k]
			if !ok {
				return &fieldError{offset: n.keyOffsets[i], field: join(path, k),
					msg: fmt.Sprintf("unknown field %q (known: %s)", k, strings.Join(sortedKeys(s.fields), ", "))}
			}
			if err := checkFields(n.vals[i], fs, join(path, k)); err != nil {
				return err
			}
		}
	case kindArray:
		for i, e := range n.elems {
			if err := checkFields(e, s.elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
