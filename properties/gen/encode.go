package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// Encode renders v as compact JSON with object keys in sorted order.
func Encode(v any) []byte {
	return EncodeOrdered(v, func(keys []string) {})
}

// EncodeShuffled renders v as compact JSON with every object's keys in an
// order drawn from s, so that decoding texts of one value in different key
// orders can be compared.
func EncodeShuffled(s Source, v any) []byte {
	return EncodeOrdered(v, func(keys []string) {
		for i := len(keys) - 1; i > 0; i-- {
			j := s.Intn(i + 1)
			keys[i], keys[j] = keys[j], keys[i]
		}
	})
}

// EncodeOrdered renders v as compact JSON; order rearranges each object's
// keys, which arrive sorted.
func EncodeOrdered(v any, order func(keys []string)) []byte {
	var buf bytes.Buffer
	encode(&buf, v, order)
	return buf.Bytes()
}

func encode(buf *bytes.Buffer, v any, order func([]string)) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		order(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			encode(buf, x[k], order)
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			encode(buf, e, order)
		}
		buf.WriteByte(']')
	default:
		b, err := json.Marshal(x)
		if err != nil {
			panic(fmt.Sprintf("gen: cannot encode %T: %v", x, err))
		}
		buf.Write(b)
	}
}

// Clone returns a deep copy of a JSON value.
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Clone(e)
		}
		return out
	}
	return v
}
