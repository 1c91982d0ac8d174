// Package attestation states what a conformance report says about a
// server artefact in the ecosystem's format for signed claims: an in-toto
// Statement (v1) whose subject is the server artefact (by name and
// digest) and whose predicate names the report by its digest, with the
// scoring profile, the suite and its catalogue, the transport and the
// target. The suite writes the statement; signing it is left to the
// ecosystem's tools (GitHub's attestation action and `gh attestation
// verify`, or cosign), never to code of ours. docs/attestation.md
// describes the predicate.
package attestation

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/report"
)

// The statement's type (in-toto Attestation Framework v1) and the
// predicate's, which this package defines: a new version of the
// predicate's layout gets a new URI.
const (
	StatementType = "https://in-toto.io/Statement/v1"
	PredicateType = "https://mcpconform.dev/attestation/report/v1"
)

// Statement is an in-toto Statement v1.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject is an artefact the statement is about: a name and its digests
// (algorithm to lower-case hex, as in-toto's DigestSet has them).
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Predicate is what the statement says of the subject: that this report,
// by its digest, is the suite's verdict on it.
type Predicate struct {
	Report    ReportRef             `json:"report"`
	Outcome   string                `json:"outcome"`  // the run's, its worst revision's
	ExitCode  int                   `json:"exitCode"` // what mcpconform run exited with
	Revisions []Revision            `json:"revisions"`
	Scoring   *Scoring              `json:"scoring"` // nil for a report scored by no profile
	Suite     Suite                 `json:"suite"`
	Target    Target                `json:"target"`
	Server    report.Implementation `json:"server"` // as the server named itself: not verified
	// SubjectSource says how the suite knows the subject: "flag" (named
	// with --subject), "executable" (the file the command names),
	// "npm-cache" (the package tarball npx ran, from the npm cache) or
	// "embedded" (this program, whose reference server was checked).
	SubjectSource string    `json:"subjectSource"`
	StartTime     time.Time `json:"startTime"`
}

// ReportRef names the JSON report by its file name and digest.
type ReportRef struct {
	Name          string            `json:"name"`
	SchemaVersion string            `json:"schemaVersion"`
	Digest        map[string]string `json:"digest"`
}

// Revision is one checked revision's outcome.
type Revision struct {
	Revision   string `json:"revision"`
	Outcome    string `json:"outcome"`
	MustPassed int    `json:"mustPassed"`
	MustTotal  int    `json:"mustTotal"`
}

// Scoring names the scoring profile by name and digest.
type Scoring struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Suite names the suite by version and its check catalogue by the digest
// of `mcpconform list --json`.
type Suite struct {
	Name            string            `json:"name"`
	Version         string            `json:"version"`
	CatalogueDigest map[string]string `json:"catalogueDigest"`
}

// Target is what was checked and how it was reached.
type Target struct {
	Transport string   `json:"transport"` // stdio
	Command   []string `json:"command,omitempty"`
	URL       string   `json:"url,omitempty"`
	InProcess string   `json:"inProcess,omitempty"`
}

// Sha256 is the DigestSet of data's SHA-256.
func Sha256(data []byte) map[string]string {
	sum := sha256.Sum256(data)
	return map[string]string{"sha256": hex.EncodeToString(sum[:])}
}

// New states that rep, whose JSON report file reportName holds exactly
// reportJSON, is the suite's verdict on subject. catalogue is the output
// of `mcpconform list --json` of the suite that made the report.
func New(rep *report.Report, reportJSON []byte, reportName string, subject Subject, source string, catalogue []byte) Statement {
	p := Predicate{
		Report:        ReportRef{Name: filepath.Base(reportName), SchemaVersion: rep.SchemaVersion, Digest: Sha256(reportJSON)},
		Outcome:       rep.Summary.Outcome,
		ExitCode:      rep.Summary.ExitCode,
		Revisions:     []Revision{},
		Suite:         Suite{Name: rep.Suite.Name, Version: rep.Suite.Version, CatalogueDigest: Sha256(catalogue)},
		Target:        Target{Transport: "stdio", Command: shownAll(rep.Target.Command), InProcess: report.Shown(rep.Target.InProcess)},
		Server:        report.Implementation{Name: report.Shown(rep.Server.Name), Version: report.Shown(rep.Server.Version)},
		SubjectSource: source,
		StartTime:     rep.StartTime.UTC(),
	}
	for _, rs := range rep.Summary.Revisions {
		p.Revisions = append(p.Revisions, Revision{Revision: rs.Revision, Outcome: rs.Outcome, MustPassed: rs.MustPassed, MustTotal: rs.MustTotal})
	}
	if s := rep.Scoring; s != nil {
		alg, hexDigest, _ := strings.Cut(s.Digest, ":")
		p.Scoring = &Scoring{Name: s.Name, Digest: map[string]string{alg: hexDigest}}
	}
	// The name travels into logs and workflow outputs: one line, shown.
	subject.Name = report.Shown(subject.Name)
	return Statement{Type: StatementType, Subject: []Subject{subject}, PredicateType: PredicateType, Predicate: p}
}

func shownAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = report.Shown(s)
	}
	return out
}

// Write writes the statement as indented JSON.
func (s Statement) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(s)
}

var subjectFlag = regexp.MustCompile(`^(.+)@sha256:([0-9a-f]{64})$`)

// ParseSubject reads --subject NAME@sha256:HEX (the name may hold @, as
// an npm package's does).
func ParseSubject(s string) (Subject, error) {
	m := subjectFlag.FindStringSubmatch(s)
	if m == nil {
		return Subject{}, fmt.Errorf("--subject %q: want NAME@sha256:HEX, 64 lower-case hex digits", s)
	}
	return Subject{Name: m[1], Digest: map[string]string{"sha256": m[2]}}, nil
}

// digestLengths are the hex lengths of the DigestSet algorithms a
// statement of this suite carries.
var digestLengths = map[string]int{"sha256": 64, "sha512": 128}

var lowerHex = regexp.MustCompile(`^[0-9a-f]+$`)

// Parse reads a statement and checks it as in-toto's Statement v1 layer
// defines it: exactly the fields _type, subject, predicateType and
// predicate; the v1 type; at least one subject, each with a name and a
// digest set of lower-case hex digests of their algorithm's length; a
// predicate type that is an absolute URI; and, for this suite's
// predicate type, a predicate that names the report by digest.
func Parse(data []byte) (Statement, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Statement{}, fmt.Errorf("statement: %w", err)
	}
	for k := range raw {
		switch k {
		case "_type", "subject", "predicateType", "predicate":
		default:
			return Statement{}, fmt.Errorf("statement: unknown field %q", k)
		}
	}
	var head struct {
		Type          string          `json:"_type"`
		Subject       []Subject       `json:"subject"`
		PredicateType string          `json:"predicateType"`
		Predicate     json.RawMessage `json:"predicate"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Statement{}, fmt.Errorf("statement: %w", err)
	}
	s := Statement{Type: head.Type, Subject: head.Subject, PredicateType: head.PredicateType}
	if !bytes.HasPrefix(bytes.TrimSpace(head.Predicate), []byte("{")) {
		return s, errors.New("statement: the predicate is not an object")
	}
	if s.Type != StatementType {
		return s, fmt.Errorf("statement: _type %q, want %s", s.Type, StatementType)
	}
	if len(s.Subject) == 0 {
		return s, errors.New("statement: no subject")
	}
	for i, sub := range s.Subject {
		if sub.Name == "" || len(sub.Digest) == 0 {
			return s, fmt.Errorf("statement: subject %d has no name or no digest", i)
		}
		if err := checkDigests(sub.Digest); err != nil {
			return s, fmt.Errorf("statement: subject %q: %w", sub.Name, err)
		}
	}
	if u, err := url.Parse(s.PredicateType); err != nil || !u.IsAbs() {
		return s, fmt.Errorf("statement: predicateType %q is not an absolute URI", s.PredicateType)
	}
	if s.PredicateType == PredicateType {
		dec := json.NewDecoder(bytes.NewReader(head.Predicate))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s.Predicate); err != nil {
			return s, fmt.Errorf("statement: predicate: %w", err)
		}
		p := s.Predicate
		if p.Report.Name == "" || checkDigests(p.Report.Digest) != nil || p.Report.Digest["sha256"] == "" {
			return s, errors.New("statement: the predicate names no report by its sha256")
		}
		if p.Suite.Version == "" || checkDigests(p.Suite.CatalogueDigest) != nil || p.Target.Transport == "" {
			return s, errors.New("statement: the predicate lacks the suite, its catalogue digest or the transport")
		}
	}
	return s, nil
}

func checkDigests(d map[string]string) error {
	if len(d) == 0 {
		return errors.New("empty digest set")
	}
	for alg, v := range d {
		n, ok := digestLengths[alg]
		if !ok || len(v) != n || !lowerHex.MatchString(v) {
			return fmt.Errorf("digest %s:%q is not %d lower-case hex digits of a known algorithm", alg, v, n)
		}
	}
	return nil
}
