package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/attestation"
	"github.com/mcpconform/mcpconform/report"
)

// prepareAttestation checks --attestation and --subject before the run
// and returns the writer of the statement. The statement names the JSON
// report by its digest, so it needs that report as a file; without
// --subject, the command must be one whose artefact the suite can name
// (attestation.Identify), which it names after the run, once npx has
// filled npm's cache.
func prepareAttestation(file, subjectFlag, jsonFile string, command []string) (func(*report.Report, io.Writer) error, error) {
	if file == "" {
		if subjectFlag != "" {
			return nil, errors.New("--subject names the subject of an attestation: give --attestation FILE too")
		}
		return nil, nil
	}
	if jsonFile == "" || jsonFile == "-" {
		return nil, errors.New("--attestation needs --json FILE: the statement names the JSON report by its digest")
	}
	embedded := len(command) == 0
	var subject attestation.Subject
	if subjectFlag != "" {
		s, err := attestation.ParseSubject(subjectFlag)
		if err != nil {
			return nil, err
		}
		subject = s
	} else if err := attestation.Identifiable(command, embedded); err != nil {
		return nil, fmt.Errorf("--attestation: %w", err)
	}
	catalogue, err := catalogueJSON()
	if err != nil {
		return nil, err
	}
	return func(rep *report.Report, w io.Writer) error {
		var js bytes.Buffer
		if err := rep.WriteJSON(&js); err != nil {
			return err
		}
		s, source := subject, attestation.SourceFlag
		if subjectFlag == "" {
			var err error
			if s, source, err = attestation.Identify(command, embedded); err != nil {
				return err
			}
		}
		return attestation.New(rep, js.Bytes(), jsonFile, s, source, catalogue).Write(w)
	}, nil
}
