package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report for a terminal: one line per finding, then a
// closing verdict line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpconform diff %s → %s (version key %s)\n", r.Old, r.New, r.VersionMeta)
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %-4s %-9s %s %s", strings.ToUpper(f.Status), f.Kind, f.Tool, transition(f))
		if f.Change != "" {
			fmt.Fprintf(&b, " [%s]", f.Change)
		}
		fmt.Fprintf(&b, " — %s", f.Message)
		if f.Rule != "" {
			fmt.Fprintf(&b, " (rule %s)", f.Rule)
		}
		fmt.Fprintf(&b, " {%s}\n", strings.Join(f.Principals, ", "))
	}
	b.WriteString(r.verdict())
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) verdict() string {
	s := r.Summary
	v := "release allowed"
	if r.Failed() {
		v = "release blocked"
	}
	return fmt.Sprintf("%d findings: %d added, %d removed, %d changed, %d unchanged, %d rewritten; %d fail, %d warn — %s",
		len(r.Findings), s.Added, s.Removed, s.Changed, s.Unchanged, s.Rewritten, s.Fail, s.Warn, v)
}

func transition(f Finding) string {
	switch {
	case f.OldVersion == f.NewVersion:
		return versionText(f.OldVersion)
	case f.Kind == KindAdded:
		return versionText(f.NewVersion)
	case f.Kind == KindRemoved:
		return versionText(f.OldVersion)
	}
	return versionText(f.OldVersion) + " → " + versionText(f.NewVersion)
}

// WriteJSON writes the report as indented JSON (format mcpconform.diff/1).
func (r *Report) WriteJSON(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode diff report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteMarkdown writes the report as a Markdown table, for a CI step
// summary.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Tool contract diff\n\n`%s` → `%s` (version key `%s`)\n\n", md(r.Old), md(r.New), md(r.VersionMeta))
	b.WriteString("| Status | Tool | Kind | Version | Change | Principals | Finding |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, f := range r.Findings {
		msg := f.Message
		if f.Rule != "" {
			msg += " (rule `" + f.Rule + "`)"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s | %s |\n", statusMark(f.Status), md(f.Tool), f.Kind,
			md(transition(f)), f.Change, md(strings.Join(f.Principals, ", ")), md(msg))
	}
	fmt.Fprintf(&b, "\n**%s**\n", r.verdict())
	_, err := io.WriteString(w, b.String())
	return err
}

func statusMark(s string) string {
	switch s {
	case StatusFail:
		return "❌ fail"
	case StatusWarn:
		return "⚠️ warn"
	}
	return "✅ pass"
}

// md escapes the characters that would break a table cell.
func md(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
