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

// Program is the executable the runner starts, with Var set, to become a
// server: this program itself, so that the suite needs no other file. A
// test binary that starts hundreds of servers names the small program
// internal/serverexec/trampoline instead, which runs the same
// initialisation at a fraction of the start-up cost of a test binary.
var Program = "/proc/self/exe"

// Direct, when set, reports whether the server at path imports this
// package itself: the runner then starts it with Var naming it, and its
// own initialisation makes it a child subreaper before the rest of it
// runs (see become), with no program executed before it. A test binary
// sets it before its tests start any server.
var Direct func(path string) bool
