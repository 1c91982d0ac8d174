package main

import (
	"github.com/mcpconform/mcpconform/conformance"
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
