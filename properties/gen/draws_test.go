package gen_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math/rand"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/properties/gen"
)

// drawSchemas are the input schemas the draw digest covers beside the
// generated ones: those of the reference's callable tools (patterns,
// enums, long strings, integer bounds, closed objects) and a few that
// reach every breaker (numbers, arrays, formats, nesting, $ref, anyOf).
var drawSchemas = []string{
	`{"additionalProperties":false,"properties":{"account":{"pattern":"^ACC-\\d{4}$","type":"string"}},"required":["account"],"type":"object"}`,
	`{"additionalProperties":false,"properties":{"message":{"maxLength":200,"minLength":1,"type":"string"},"mode":{"enum":["form","url"],"type":"string"}},"type":"object"}`,
	`{"additionalProperties":false,"type":"object"}`,
	`{"additionalProperties":false,"properties":{"prompt":{"maxLength":200,"minLength":1,"type":"string"}},"type":"object"}`,
	`{"additionalProperties":false,"properties":{"durationMs":{"maximum":1000,"minimum":0,"type":"integer"},"steps":{"maximum":20,"minimum":1,"type":"integer"}},"type":"object"}`,
	`{"additionalProperties":false,"properties":{"base":{"enum":["AED","EUR","USD"],"type":"string"}},"type":"object"}`,
	`{"additionalProperties":false,"properties":{"include_legs":{"type":"boolean"},"reference":{"pattern":"^PMT-\\d{3,}$","type":"string"}},"required":["reference"],"type":"object"}`,
	`{"additionalProperties":false,"properties":{"amount":{"minimum":1,"type":"integer"},"currency":{"enum":["AED","EUR","USD"],"type":"string"},"from":{"pattern":"^ACC-\\d{4}$","type":"string"},"to":{"pattern":"^ACC-\\d{4}$","type":"string"}},"required":["amount","currency","from","to"],"type":"object"}`,
	`{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0.5,"exclusiveMaximum":9.25,"multipleOf":0.25},"n":{"type":"integer","multipleOf":3,"maximum":100},"f":{"type":"number","minimum":-2.5}},"required":["x"]}`,
	`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","minLength":2,"maxLength":5},"minItems":1,"maxItems":4,"uniqueItems":true},"any":{"type":"array","minItems":2,"uniqueItems":true}},"required":["tags"],"additionalProperties":{"type":"integer"}}`,
	`{"type":"object","properties":{"when":{"type":"string","format":"date-time"},"mail":{"type":"string","format":"email"},"id":{"type":"string","format":"uuid"},"u":{"format":"uri"},"c":{"const":{"a":[1,"b"]}},"e":{"enum":[1,2.5,"x",null,true]}},"required":["when","c"]}`,
	`{"type":"object","properties":{"code":{"type":"string","pattern":"^[a-z]+(-[0-9]+)*$","maxLength":300},"short":{"type":"string","pattern":"^(ab|c)+$","minLength":3,"maxLength":9}},"required":["code"]}`,
	`{"$defs":{"p":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]{1,8}$"},"next":{"$ref":"#/$defs/p"}},"required":["name"],"additionalProperties":false}},"type":"object","properties":{"head":{"$ref":"#/$defs/p"},"mode":{"anyOf":[{"type":"string","maxLength":3},{"type":"integer","minimum":5}]},"timeout_ms":{"type":"number","minimum":0},"t":{"type":["string","null","integer"]}}}`,
}

// drawDigest draws, for each schema, valid cases and a run of invalid
// ones per constraint from one source, and hashes every case's encoding
// with whether it was found, and where the source's stream ended.
func drawDigest(t *testing.T, newSource func(seed int64) gen.Source) string {
	t.Helper()
	h := sha256.New()
	var schemas []any
	for _, text := range drawSchemas {
		var s any
		d := json.NewDecoder(strings.NewReader(text))
		d.UseNumber()
		if err := d.Decode(&s); err != nil {
			t.Fatal(err)
		}
		schemas = append(schemas, s)
	}
	for seed := range 300 {
		schemas = append(schemas, gen.Schema(gen.NewRand(uint64(seed)), 3))
	}
	for i, schema := range schemas {
		plan := gen.NewPlan(schema)
		src := newSource(int64(i))
		for range 8 {
			v, ok := plan.Valid(src)
			digestCase(h, v, ok)
		}
		for _, c := range plan.Constraints() {
			fmt.Fprintf(h, "%s|", c)
			for range 4 {
				v, ok := plan.Invalid(src, c)
				digestCase(h, v, ok)
			}
		}
		fmt.Fprintf(h, "end %d\n", src.Intn(1<<30))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func digestCase(h hash.Hash, v any, ok bool) {
	if ok {
		h.Write(gen.Encode(v))
	}
	fmt.Fprintf(h, " %t\n", ok)
}

// TestDrawsUnchanged holds what the plans draw, from the suite's source
// (math/rand, as conformance.T.Rand gives) and from gen.NewRand, to the
// digest of the draws as they were: a faster generator must draw the same
// cases and leave the stream where it did, or the same seed would send
// other requests and write another report. A change meant to draw other
// cases updates the digests, and says so.
func TestDrawsUnchanged(t *testing.T) {
	for _, c := range []struct {
		name   string
		source func(seed int64) gen.Source
		want   string
	}{
		{"math/rand", func(seed int64) gen.Source { return rand.New(rand.NewSource(seed)) }, "c8837bd46dcd8a055a112f016a2a134dff030014d473ea153a9abb29a778a78d"},
		{"gen.NewRand", func(seed int64) gen.Source { return gen.NewRand(uint64(seed)) }, "dacfd6ce808007be1d3af2d5cddfcad2758339efbad54e7bf0ec18148804f18c"},
	} {
		if got := drawDigest(t, c.source); got != c.want {
			t.Errorf("%s: draw digest %s, want %s", c.name, got, c.want)
		}
	}
}

// BenchmarkDraws draws the reference's tools' cases as an argument
// property does: per tool, valid cases, or invalid ones breaking its
// constraints in turn, from the suite's source.
func BenchmarkDraws(b *testing.B) {
	var plans []*gen.Plan
	for _, text := range drawSchemas[:8] {
		var s any
		d := json.NewDecoder(strings.NewReader(text))
		d.UseNumber()
		if err := d.Decode(&s); err != nil {
			b.Fatal(err)
		}
		plans = append(plans, gen.NewPlan(s))
	}
	for _, side := range []string{"valid", "invalid"} {
		b.Run(side, func(b *testing.B) {
			src := rand.New(rand.NewSource(1))
			i := 0
			for b.Loop() {
				for _, p := range plans {
					if side == "valid" {
						p.Valid(src)
						continue
					}
					if cs := p.Constraints(); len(cs) > 0 {
						p.Invalid(src, cs[i%len(cs)])
					}
				}
				i++
			}
		})
	}
}
