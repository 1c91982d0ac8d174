package conformance

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeInitializeInfoMatchesSlow holds the fast reading of an
// initialize result to encoding/json's, on results whose member names,
// types and strings take each path: plain, escaped, not plain, named
// but for case, twice, missing, of the wrong type, and long.
func TestDecodeInitializeInfoMatchesSlow(t *testing.T) {
	long := strings.Repeat("N", memoMin)
	for _, raw := range []string{
		`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"a","version":"1"}}`,
		`{"capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"\u202e\ufdd0 ` + long + `","version":"1.0.0-` + long + `"}}`,
		`{"capabilities":{},"serverInfo":{"name":"a\"b\\u00e9","version":2}}`,
		`{"capabilities":{},"serverInfo":{"NAME":"upper","version":"1"}}`,
		`{"capabilities":{},"serverInfo":{"name":"first","name":"second","version":"1"}}`,
		`{"Capabilities":{"logging":{}},"serverInfo":{"name":"a","version":"1"}}`,
		`{"capabilities":{"tools":{}},"capabilities":{"prompts":{}},"serverInfo":{"name":"a","version":"1"}}`,
		`{"capabilities":5,"serverInfo":{"name":"a","version":"1"}}`,
		`{"capabilities":null,"serverInfo":null}`,
		`{"capabilities":{}}`,
		`{"capabilities":{},"serverInfo":{"name":null,"version":"1"},"s\u0065rverInfo":{"name":"escaped"}}`,
		`{"capabilities":{},"ſerverInfo":{"name":"long s","version":"1"}}`,
		`[]`,
		`"not an object"`,
	} {
		got, want := decodeInitializeInfo(json.RawMessage(raw)), decodeInitializeInfoSlow(json.RawMessage(raw))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%.100s:\n got %+.100v\nwant %+.100v", raw, got, want)
		}
	}
}

// TestDecodeResultCopies: a long result is decoded once, and each caller
// gets objects and arrays of its own, which it may change without
// changing another's; a short one, or one that is not an object, is
// decodeObject's.
func TestDecodeResultCopies(t *testing.T) {
	raw := json.RawMessage(`{"serverInfo":{"name":"` + strings.Repeat("N", memoMin) + `"},"list":[1,{"a":2}]}`)
	first, err := decodeResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	first["serverInfo"].(map[string]any)["name"] = "changed"
	first["list"].([]any)[1].(map[string]any)["a"] = "changed"
	second, _ := decodeResult(raw)
	want, _ := decodeObject(raw)
	if !reflect.DeepEqual(second, want) {
		t.Errorf("a second caller got a result the first changed")
	}
	if got, _ := decodedResults.entries[memoKey{weakOf(raw), len(raw)}]; got.obj == nil {
		t.Errorf("the long result was not remembered")
	}
	for _, raw := range []string{`{"a":1}`, `null`, `[1]`, `{`} {
		got, gotErr := decodeResult(json.RawMessage(raw))
		want, wantErr := decodeObject(json.RawMessage(raw))
		if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: got %v, %v; want %v, %v", raw, got, gotErr, want, wantErr)
		}
	}
}
