// Package serverexec is the start of every server process the runner
// (package runner) starts on Linux: the runner executes its own program with
// Var in the environment, and this package's initialisation makes the
// process a child subreaper and then becomes the server Var names.
//
// It imports syscall alone, so that it initialises as early as a package
// can: Go initialises the packages whose imports are done in the order of
// their import paths, and nothing of the program that does not have to runs
// in a process that becomes another program (its start would pay for it).
// GODEBUG=inittrace=1 shows what runs before it.
package serverexec

// Var, in the environment of a process of the program, names the server it
// is to become.
const Var = "MCPCONFORM_RUNNER_EXEC"
