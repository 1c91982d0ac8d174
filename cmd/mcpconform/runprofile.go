package main

import (
	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/conformance/profile"
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
