package reference

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// benchSchema is a payment-initiation schema of realistic size: nested
// objects, an array of legs, enums, bounds and a pattern.
const benchSchema = `{"type": "object",
  "properties": {
    "reference": {"type": "string", "pattern": "^PMT-\\d{3,}$"},
    "currency": {"type": "string", "enum": ["AED", "EUR", "GBP", "USD"]},
    "amount": {"type": "integer", "minimum": 1, "maximum": 1000000000},
    "memo": {"type": "string", "maxLength": 140},
    "urgent": {"type": "boolean", "default": false},
    "payee": {"type": "object", "properties": {
      "name": {"type": "string", "minLength": 1, "maxLength": 70},
      "iban": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$"}},
      "required": ["name", "iban"], "additionalProperties": false},
    "legs": {"type": "array", "minItems": 1, "maxItems": 10, "items": {"type": "object", "properties": {
      "account": {"type": "string"}, "amount": {"type": "integer", "minimum": 1}}, "required": ["account", "amount"]}}},
  "required": ["reference", "currency", "amount", "payee"],
  "additionalProperties": false}`

const benchValid = `{"reference": "PMT-771", "currency": "AED", "amount": 250000, "memo": "rent",
  "payee": {"name": "Landlord LLC", "iban": "AE070331234567890123456"},
  "legs": [{"account": "A1", "amount": 125000}, {"account": "A2", "amount": 125000}]}`

const benchInvalid = `{"reference": "PMT771", "currency": "XXX", "amount": 0, "memo": 5, "extra": true,
  "payee": {"name": "", "iban": "nope", "nick": "x"},
  "legs": [{"account": "A1", "amount": "125000"}, {"amount": -1}]}`

func BenchmarkValidate(b *testing.B) {
	schema := mustDecode(b, benchSchema)
	for _, tc := range []struct{ name, value string }{
		{"valid", benchValid}, {"invalid", benchInvalid}, {"traced-call", `{"reference": "PMT771", "include_legs": "yes", "urgent": true}`},
	} {
		value := mustDecode(b, tc.value)
		s := schema
		if tc.name == "traced-call" {
			s = mustDecode(b, paymentsLookup)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Validate(value, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkClassifySchemaChange(b *testing.B) {
	before := mustDecode(b, benchSchema)
	for _, tc := range []struct{ name, from, to string }{
		{"identical", `"maxLength": 140`, `"maxLength": 140`},
		{"minor", `"maxLength": 140`, `"maxLength": 280`},
		{"major", `"minimum": 1, "maximum": 1000000000`, `"minimum": 1, "maximum": 100000000`},
	} {
		after := mustDecode(b, replaceOnce(b, benchSchema, tc.from, tc.to))
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ClassifySchemaChange(before, after)
			}
		})
	}
}

func BenchmarkRepairArguments(b *testing.B) {
	schema, args := mustDecode(b, benchSchema), mustDecode(b, benchInvalid)
	b.ReportAllocs()
	for b.Loop() {
		RepairArguments(args, schema)
	}
}

func replaceOnce(b *testing.B, s, old, new string) string {
	b.Helper()
	if !strings.Contains(s, old) {
		b.Fatalf("%q not in the schema", old)
	}
	return strings.Replace(s, old, new, 1)
}

// nestedSchema nests objects and arrays five levels deep, each level with
// bounds, an enum and a pattern, so that validation walks a tree rather
// than a flat object.
func nestedSchema(depth int) string {
	s := `{"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]+$"}, "n": {"type": "integer", "minimum": 0}}, "required": ["id"]}`
	for range depth {
		s = `{"type": "object", "properties": {"kind": {"type": "string", "enum": ["a", "b", "c"]},
		  "size": {"type": "number", "maximum": 100}, "child": ` + s + `,
		  "list": {"type": "array", "maxItems": 5, "items": ` + s + `}},
		  "required": ["kind", "child"], "additionalProperties": false}`
	}
	return s
}

// nestedValue is a valid value for nestedSchema(depth).
func nestedValue(depth int) string {
	v := `{"id": "leaf", "n": 3}`
	for range depth {
		v = `{"kind": "b", "size": 12.5, "child": ` + v + `, "list": [` + v + `, ` + v + `]}`
	}
	return v
}

// compiledCases are the cases of BenchmarkCompiledValidate: the seed's
// traced call (invalid three ways), a valid payment, and a nested schema.
var compiledCases = []struct{ name, schema, value string }{
	{"traced-call", paymentsLookup, `{"reference": "PMT771", "include_legs": "yes", "urgent": true}`},
	{"valid", benchSchema, benchValid},
	{"nested", nestedSchema(3), nestedValue(3)},
}

// BenchmarkCompiledValidate validates precompiled schemas, ours and, in the
// santhosh sub-benchmarks, github.com/santhosh-tekuri/jsonschema/v6's, on
// the same decoded values; both must reach the same verdict first.
func BenchmarkCompiledValidate(b *testing.B) {
	for _, tc := range compiledCases {
		schema, value := mustDecode(b, tc.schema), mustDecode(b, tc.value)
		ours, err := Compile(schema)
		if err != nil {
			b.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem:///"+tc.name+".json", schema); err != nil {
			b.Fatal(err)
		}
		theirs, err := c.Compile("mem:///" + tc.name + ".json")
		if err != nil {
			b.Fatal(err)
		}
		if o, t := len(ours.Validate(value)) == 0, theirs.Validate(value) == nil; o != t {
			b.Fatalf("%s: verdicts differ: ours valid=%v, santhosh valid=%v", tc.name, o, t)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ours.Validate(value)
			}
		})
		b.Run(tc.name+"/santhosh", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = theirs.Validate(value)
			}
		})
	}
}
