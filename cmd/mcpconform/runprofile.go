package main

import (
	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/conformance/fixtures"
	"github.com/mcpconform/mcpconform/conformance/profile"
	"github.com/mcpconform/mcpconform/examples"
)

// applyProfile loads the target profile at path (if any) into opts: the
// governance checks get it, and its command and environment apply when
// the command line names no server. explicitCommand says whether it did.
func applyProfile(path string, explicitCommand bool, opts *conformance.Options) error {
	if path == "" {
		return nil
	}
	p, err := profile.Load(path)
	if err != nil {
		return err
	}
	opts.Profile = p
	if !explicitCommand && len(p.Command) > 0 {
		opts.Command = p.Command
	}
	opts.Env = append(opts.Env, p.EnvFor(profile.Principal{})...)
	return nil
}

// useReferenceProfile gives a run against the embedded reference, which
// names no profile, the reference's own (examples/reference.profile.json,
// compiled in): the estate-profile checks then run and are reported in
// their own section. A run against another server still needs --profile.
func useReferenceProfile(opts *conformance.Options) error {
	p, err := profile.Parse(examples.ReferenceProfileName, examples.ReferenceProfile)
	if err != nil {
		return err
	}
	opts.Profile = p
	opts.Env = append(opts.Env, p.EnvFor(profile.Principal{})...)
	return nil
}

// applyFixtures loads the fixtures file at path into opts; without one, a
// run against the embedded reference uses the reference's own
// (examples/reference.fixtures.yaml, compiled in), so that its client
// features are exercised in every revision.
func applyFixtures(path string, reference bool, opts *conformance.Options) error {
	var (
		f   *fixtures.File
		err error
	)
	switch {
	case path != "":
		f, err = fixtures.Load(path)
	case reference:
		f, err = fixtures.Parse(examples.ReferenceFixturesName, examples.ReferenceFixtures)
	default:
		return nil
	}
	if err != nil {
		return err
	}
	opts.Fixtures = f
	return nil
}
