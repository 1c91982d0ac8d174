// Command trampoline becomes the server its environment names (package
// serverexec), as the runner's own program does at its start: test binaries
// that start many servers have the runner start this instead of
// themselves (serverexec.Program), since it loads and initialises only
// what serverexec needs.
package main

import (
	"syscall"

	"github.com/mcpconform/mcpconform/internal/serverexec"
)

// main runs only when the environment names no server: serverexec's
// initialisation has otherwise executed it already.
func main() {
	syscall.Write(2, []byte("trampoline: "+serverexec.Var+" names no server to become\n"))
	syscall.Exit(127)
}
