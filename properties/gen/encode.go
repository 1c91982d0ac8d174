package gen

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/mcpconform/mcpconform/protocol"
)

// Encode renders v as compact JSON with object keys in sorted order.
func Encode(v any) []byte {
	// Room for a small arguments object at once, rather than the
	// doublings from eight bytes up that appending to nil takes.
	return encodeSorted(make([]byte, 0, 64), v)
}

// AppendEncoded appends Encode(v) to buf.
func AppendEncoded(buf []byte, v any) []byte { return encodeSorted(buf, v) }

// encodeSorted is encode with the keys left sorted, each object's keys
// sorted in a buffer on the stack when they are few: a generated case is
// encoded once drawn and once more per capped wait, and a slice of keys
// for every object was a good part of encoding it. TestEncodeSorted holds
// it to EncodeOrdered.
func encodeSorted(buf []byte, v any) []byte {
	switch x := v.(type) {
	case map[string]any:
		var arr [8]string
		keys := arr[:0]
		if len(x) > len(arr) {
			keys = make([]string, 0, len(x))
		}
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = protocol.AppendString(buf, k, true)
			buf = append(buf, ':')
			buf = encodeSorted(buf, x[k])
		}
		return append(buf, '}')
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = encodeSorted(buf, e)
		}
		return append(buf, ']')
	}
	return encode(buf, v, nil)
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
	return encode(nil, v, order)
}

// encode appends v to buf as json.Marshal renders each part of it. Strings
// and object keys, most of a generated value, are written here rather than
// through json.Marshal: an argument property encodes every case it draws,
// and a Marshal per string was most of the encoding. TestEncodeMatchesMarshal
// holds the two together.
func encode(buf []byte, v any, order func([]string)) []byte {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		order(keys)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = protocol.AppendString(buf, k, true)
			buf = append(buf, ':')
			buf = encode(buf, x[k], order)
		}
		return append(buf, '}')
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = encode(buf, e, order)
		}
		return append(buf, ']')
	case string:
		return protocol.AppendString(buf, x, true)
	case bool:
		return strconv.AppendBool(buf, x)
	case int:
		return strconv.AppendInt(buf, int64(x), 10)
	case json.Number:
		// A number json.Marshal writes as it is (every number the
		// generator draws), without json.Marshal's reflection; anything
		// else ("" as 0, or an error) is json.Marshal's.
		if protocol.Number(x) {
			return append(buf, x...)
		}
		b, err := json.Marshal(x)
		if err != nil {
			panic(fmt.Sprintf("gen: cannot encode %T: %v", x, err))
		}
		return append(buf, b...)
	case nil:
		return append(buf, "null"...)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			panic(fmt.Sprintf("gen: cannot encode %T: %v", x, err))
		}
		return append(buf, b...)
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
