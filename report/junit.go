package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// junitSuites is the root. It has no skipped attribute: Jenkins' schema
// allows none there (each testsuite has its own).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the report as JUnit XML: one testsuite per revision
// checked, with the scoring profile and its digest among its properties,
// and one per extension judged (its checks of every revision, never
// scored), one testcase per check named CHECK-ID@REVISION. The file keeps to what
// both Jenkins' junit-10.xsd and Surefire's test-report XSD allow. A fail
// (or, under --strict, a warn) is a <failure>, an error is an <error>;
// n/a, not-exercised, not-verified, blocked, expected failures and every
// result of a pending check are <skipped> with the reason, as is an
// extension's fail or warn (not scored, so it fails no build); a warn
// outside --strict passes with the warning in <system-out>.
func (rep *Report) WriteJUnit(w io.Writer) error {
	strict := rep.Options.Strict
	root := junitSuites{Name: "mcpconform", Time: seconds(rep.DurationMs)}
	byRev := map[string]*junitSuite{}
	var order, extOrder []string // the extensions' suites after the revisions'
	for _, r := range rep.Results {
		key, name, props := r.Revision, "mcp "+r.Revision, []junitProperty{{Name: "revision", Value: r.Revision}}
		if r.IsExtension() {
			a := r.Authority
			key, name = "extension "+a.Extension, "extension "+Clean(a.Extension)
			props = []junitProperty{{Name: "extension", Value: Clean(a.Extension)}, {Name: "extension-text", Value: Clean(a.Source + " " + a.File)}, {Name: "scored", Value: "false"}}
		}
		s := byRev[key]
		if s == nil {
			s = &junitSuite{Name: name, Time: "0.000"}
			s.Properties = append(props, []junitProperty{
				{Name: "seed", Value: fmt.Sprint(rep.Seed)},
				{Name: "server", Value: Clean(strings.TrimSpace(rep.Server.Name + " " + rep.Server.Version))},
				{Name: "suite", Value: rep.Suite.Name + " " + rep.Suite.Version},
			}...)
			if rep.Target.Transport == "http" {
				s.Properties = append(s.Properties, junitProperty{Name: "target", Value: rep.Target.Describe()}, junitProperty{Name: "transport", Value: rep.Target.Transport})
			}
			if p := rep.Scoring; p != nil {
				s.Properties = append(s.Properties, junitProperty{Name: "scoring-profile", Value: p.Name}, junitProperty{Name: "scoring-digest", Value: p.Digest})
			}
			// Surefire's schema has no timestamp attribute on a testsuite.
			if !rep.StartTime.IsZero() {
				s.Properties = append(s.Properties, junitProperty{Name: "timestamp", Value: rep.StartTime.UTC().Format(time.RFC3339)})
			}
			byRev[key] = s
			if r.IsExtension() {
				extOrder = append(extOrder, key)
			} else {
				order = append(order, key)
			}
		}
		// Tools that merge suites key cases by name: the revision makes
		// each one unique.
		c := junitCase{Name: r.ID + "@" + r.Revision, Classname: r.Area(), Time: seconds(r.DurationMs)}
		body := caseBody(r)
		switch {
		case r.Pending():
			c.Skipped = &junitSkipped{Message: fmt.Sprintf("pending (not scored by %s): %s: %s", Clean(rep.Scoring.nameOr("the profile")), r.Status, Clean(r.Message))}
			if r.Status != StatusPass && r.Status != StatusNA {
				c.SystemOut = body
			}
		case r.IsExtension() && (r.Status == StatusFail || r.Status == StatusWarn):
			c.Skipped = &junitSkipped{Message: fmt.Sprintf("not scored (extension %s): %s: %s", Clean(r.Authority.Extension), r.Status, Clean(r.Message))}
			c.SystemOut = body
		case r.ExpectedFailure != "" && (r.Status == StatusFail || r.Status == StatusWarn):
			c.Skipped = &junitSkipped{Message: fmt.Sprintf("expected failure (%s): %s", r.Status, Clean(r.ExpectedFailure))}
			c.SystemOut = body
		case r.Status == StatusFail || (strict && r.Status == StatusWarn && r.Scored()):
			c.Failure = &junitProblem{Message: Clean(r.Message), Type: fmt.Sprintf("%s %s", r.Level, r.Status), Text: body}
		case r.Status == StatusError:
			c.Error = &junitProblem{Message: Clean(r.Message), Type: "harness error", Text: body}
		case r.Status == StatusNA || r.Status == StatusNotExercised || r.Status == StatusNotVerified || r.Status == StatusBlocked:
			c.Skipped = &junitSkipped{Message: fmt.Sprintf("%s: %s", r.Status, Clean(r.Message))}
		case r.Status == StatusWarn:
			c.SystemOut = "WARN (SHOULD): " + Clean(r.Message) + "\n" + body
		}
		s.Tests++
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Error != nil:
			s.Errors++
		case c.Skipped != nil:
			s.Skipped++
		}
		s.Time = seconds(parseSeconds(s.Time)*1000 + r.DurationMs)
		s.Cases = append(s.Cases, c)
	}
	for _, key := range append(order, extOrder...) {
		s := byRev[key]
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
		root.Suites = append(root.Suites, *s)
	}
	if s, ok := rep.runEndSuite(); ok {
		root.Tests += s.Tests
		root.Errors += s.Errors
		root.Suites = append(root.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// caseBody is the text inside a JUnit failure: requirement, spec refs,
// expected, actual and the transcript, one line each, each made inert.
func caseBody(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n", r.Level, Clean(r.ID), Clean(r.Requirement))
	for _, ref := range r.Refs {
		fmt.Fprintf(&b, "spec: %s\n", Clean(ref.String()))
	}
	if r.Expected != "" {
		fmt.Fprintf(&b, "expected: %s\n", Clean(r.Expected))
	}
	if r.Actual != "" {
		fmt.Fprintf(&b, "actual: %s\n", Clean(r.Actual))
	}
	for _, l := range r.Transcript {
		fmt.Fprintf(&b, "%s %s %s\n", Clean(l.Process), Clean(l.Dir), Clean(l.Text))
	}
	return b.String()
}

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

func parseSeconds(s string) float64 {
	var f float64
	fmt.Sscanf(s, "%f", &f)
	return f
}
