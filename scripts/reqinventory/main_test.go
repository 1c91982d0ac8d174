package main

import (
	"strings"
	"testing"
)

// A text shaped as an extension's: prose under headings, a TypeScript
// block whose comments state requirements, a fenced line that looks like
// a heading.
const extensionText = "# Widgets\n\n## Format\n\n```typescript\ninterface Widget {\n  /**\n   * Name of the widget\n   *\n   * MUST be `lower-case` in the [first](https://example.com/a) release.\n   * Other names are reserved.\n   */\n  name: string;\n}\n```\n\n#### Rules:\n\n- Size MUST be\n  positive\n\n```sh\n# Rules:\necho the widget SHOULD wave\n```\n\n## Hosts\n\nHosts SHOULD render widgets.\n"

func TestFindQuote(t *testing.T) {
	for _, c := range []struct {
		section, sentence, err string
	}{
		{"Format", "MUST be `lower-case` in the first release.", ""},
		{"Format", "Size MUST be positive", ""}, // a subsection is within its section
		{"Rules:", "Size MUST be positive", ""}, // across a line break
		{"Hosts", "Hosts SHOULD render widgets.", ""},
		{"Rules:", "Hosts SHOULD render widgets.", "is not under the heading"}, // the next section
		{"Hosts", "Size MUST be positive", "is not under the heading"},
		{"Format", "MUST be `lower-case` in the first releases.", "is not under the heading"}, // one word off
		{"Format", "MUST be `Lower-case` in the first release.", "is not under the heading"},
		{"Rule", "Size MUST be positive", `no heading "Rule"`},
		{"Widgets", "the widget SHOULD wave", ""}, // a fenced "# Rules:" is no heading
	} {
		err := findQuote(extensionText, c.section, c.sentence)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q under %q: %v", c.sentence, c.section, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q under %q: error %v, want %q", c.sentence, c.section, err, c.err)
		}
	}
}

func TestTextDirsSet(t *testing.T) {
	d := textDirs{}
	if err := d.Set("modelcontextprotocol/ext-apps=/src/ext-apps"); err != nil || d["modelcontextprotocol/ext-apps"] != "/src/ext-apps" {
		t.Errorf("Set: %v, %v", err, d)
	}
	for _, bad := range []string{"ext-apps=/src", "a/b", "a/b=", "a/b/c=/d"} {
		if err := d.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
}
