package conformance

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The stdio checks judge every line the server processes of a revision
// wrote during the whole run (they are Final), so a fault anywhere is seen.

func refStdio(rev string) SpecRef {
	if rev == protocol.Modern {
		// The framing rules open the page, before its first heading.
		return SpecRef{Revision: rev, File: "basic/transports/stdio.mdx"}
	}
	return SpecRef{Revision: rev, File: "basic/transports.mdx", Section: "stdio"}
}

func init() {
	Register(Check{
		ID:          "stdio.framing.newline-delimited",
		Title:       "Each message is one line",
		Requirement: "Messages are delimited by newlines and MUST NOT contain embedded newlines.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "stdio",
			"Messages are delimited by newlines, and MUST NOT contain embedded newlines."),
		Also:  []Authority{MCP(protocol.Modern, "basic/transports/stdio.mdx", "stdio", "Messages are delimited by newlines, and MUST NOT contain embedded newlines.")},
		Refs:  []SpecRef{refStdio(protocol.Rev20251125), refStdio(protocol.Modern)},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, problems := t.scanInbound()
			requireOutput(t, msgs, problems)
			frags := problems[lineFragment]
			t.Expect("every stdout line is one complete JSON-RPC message")
			if len(frags) > 0 {
				t.evidenceLines(frags, 5)
				t.Actual("%d lines are pieces of a JSON text", len(frags))
				t.Failf("a message was split across lines (embedded newline), e.g. %s line %q", frags[0].process, clip(frags[0].text))
			}
		},
	})
	Register(Check{
		ID:          "stdio.stdout.messages-only",
		Title:       "Stdout carries only MCP messages",
		Requirement: "The server MUST NOT write anything to its stdout that is not a valid MCP message; logs belong on stderr.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message."),
		Also:  []Authority{validMessageModern},
		Refs:  []SpecRef{refStdio(protocol.Rev20251125), refStdio(protocol.Modern)},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, problems := t.scanInbound()
			requireOutput(t, msgs, problems)
			var bad, deep []inboundMessage
			for _, l := range append(problems[lineNotJSON], problems[lineNotMessage]...) {
				if runner.TooDeep([]byte(l.text)) {
					deep = append(deep, l) // valid or not, not decoded here
				} else {
					bad = append(bad, l)
				}
			}
			var junk, unread []inboundMessage // over-long lines, by their start
			var junkWhat []string
			for _, l := range problems[lineUnjudged] {
				if head, size, verdict, ok := cutLine(l.text); ok {
					// Read whole, kept in part: the runner judged it.
					if verdict == runner.CutNotJSON || verdict == runner.CutNotMessage {
						junk = append(junk, l)
						junkWhat = append(junkWhat, runner.DescribeBadLine([]byte(head), size, verdict))
					}
					continue
				}
				head, size, ok := discardedLine(l.text)
				switch {
				case !ok:
				case runner.LooksLikeObject([]byte(head)) || strings.HasPrefix(strings.TrimSpace(head), "["):
					unread = append(unread, l)
				default:
					junk = append(junk, l)
					junkWhat = append(junkWhat, runner.DescribeLongLine([]byte(head), size))
				}
			}
			t.Expect("only JSON-RPC messages on stdout (stderr is never judged)")
			if len(junk) > 0 {
				t.evidenceLines(junk, 3)
				t.Actual("%d lines over the line limit are not JSON", len(junk))
				t.Failf("stdout carried %s (%s)%s", junkWhat[0], junk[0].process, moreLines(len(junk)))
			}
			if len(bad) > 0 {
				t.evidenceLines(bad, 5)
				t.Actual("%d lines are not JSON-RPC messages", len(bad))
				t.Failf("stdout carried a line that is not a JSON-RPC message: %s wrote %q%s", bad[0].process, clip(bad[0].text), moreLines(len(bad)))
			}
			if len(junk)+len(bad) > 0 {
				return
			}
			if len(unread) > 0 {
				t.evidenceLines(unread, 3)
				t.NotVerified("%d stdout lines over the limit of %d bytes were not read (the first from %s); raise --max-line-bytes to judge them", len(unread), t.maxLineBytes(), unread[0].process)
			}
			if len(deep) > 0 {
				t.evidenceLines(deep, 3)
				t.NotVerified("%d stdout lines nest JSON more than 10000 levels deep, which this suite does not decode (the first from %s)", len(deep), deep[0].process)
			}
		},
	})
	Register(Check{
		ID:          "stdio.encoding.utf8",
		Title:       "Messages are UTF-8",
		Requirement: "JSON-RPC messages MUST be UTF-8 encoded (stated from 2025-03-26; under 2024-11-05 a line that is not valid UTF-8 is not the valid MCP message stdio requires, since it is no JSON text).",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Transports",
			"JSON-RPC messages MUST be UTF-8 encoded.").
			WithNote("2024-11-05 states it through stdio: a line that is not UTF-8 is no JSON text, so not the valid MCP message stdout may carry."),
		Also: []Authority{MCP(protocol.Modern, "basic/transports/index.mdx", "Messages", "JSON-RPC messages MUST be UTF-8 encoded."), MCP(protocol.Rev20241105, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.")},
		Refs: []SpecRef{
			// The sentence opens the page, before its first heading.
			{Revision: protocol.Rev20251125, File: "basic/transports.mdx"},
			{Revision: protocol.Modern, File: "basic/transports/index.mdx", Section: "Messages"},
			refStdio(protocol.Rev20241105),
		},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, problems := t.scanInbound()
			requireOutput(t, msgs, problems)
			bad := problems[lineNotUTF8]
			t.Expect("every stdout line is valid UTF-8")
			if len(bad) > 0 {
				t.evidenceLines(bad, 3)
				t.Actual("%d lines are not valid UTF-8", len(bad))
				t.Failf("%s wrote a line that is not valid UTF-8%s", bad[0].process, moreLines(len(bad)))
			}
		},
	})
	Register(Check{
		ID:          "stdio.shutdown.exit-on-eof",
		Title:       "Exits when stdin closes",
		Requirement: "Servers SHOULD exit promptly when their standard input is closed.",
		Authority: MCP(protocol.Rev20260728, "basic/transports/stdio.mdx", "Shutdown",
			"Servers SHOULD exit promptly when their standard input is closed or reads return end-of-file."),
		Refs:      []SpecRef{{Revision: protocol.Modern, File: "basic/transports/stdio.mdx", Section: "Shutdown"}},
		Revisions: ModernOnly(),
		// Final: the first process it closes is the revision's scratch
		// session, once no other check needs it.
		Final: true,
		Run: func(t *T) {
			cfg := t.processConfig()
			var exit runner.Exit
			if c := t.takeScratch(); c != nil {
				exit = closeTimed(t, c)
			} else {
				exit = eofExit(t, cfg)
			}
			if exit.Escalation != "eof" && exit.Escalation != "sigkill" {
				// The grace is a harness budget: on a loaded machine a server
				// that exits on EOF can miss it. One more process with four
				// times the grace tells a slow exit from none.
				grace := cfg.ShutdownGrace
				if grace <= 0 {
					grace = runner.DefaultShutdownGrace
				}
				t.Logf("the first process needed %s; a second one gets a %v grace", exit.Escalation, 4*grace)
				cfg.ShutdownGrace = 4 * grace
				exit = eofExit(t, cfg)
			}
			t.Expect("the process exits after stdin closes, without a signal")
			t.Actual("shutdown escalation: %s", exit.Escalation)
			if exit.Escalation != "eof" {
				t.Failf("the server did not exit after stdin closed; it needed %s", exit.Escalation)
			}
		},
	})
	Register(Check{
		ID:          "stdio.shutdown.eof-metric",
		Title:       "Shutdown by closing stdin (report only)",
		Requirement: "The client SHOULD shut a stdio server down by closing its stdin, then SIGTERM, then SIGKILL; the server's reaction is reported, not judged.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "stdio",
			"The server MAY initiate shutdown by closing its output stream to the client and exiting.").
			WithNote("Legacy revisions bind the server to no exit behaviour: the client SHOULD close stdin, then SIGTERM, then SIGKILL; how the server reacts is reported, not judged."),
		Refs:      []SpecRef{{Revision: protocol.Rev20251125, File: "basic/lifecycle.mdx", Section: "Shutdown"}},
		Revisions: Legacy(),
		// Final: it ends the revision's scratch session (an initialized
		// process apart from the shared one) once no other check needs
		// it, or as the revision's last check the shared session
		// (endSession), rather than starting a process only to end it.
		Final: true,
		Run: func(t *T) {
			c := t.endSession()
			if c == nil {
				c = t.FreshSession()
			}
			began := time.Now()
			exit := c.Close()
			t.Metric("exitMs", ms(time.Since(began)))
			switch exit.Escalation {
			case "eof":
				t.Logf("the server exited when stdin closed")
			default:
				t.Logf("the server needed %s to exit (allowed in this revision)", exit.Escalation)
			}
		},
	})
}

// requireOutput ends a check that judges stdout lines as not-verified when
// the server wrote none: zero lines are no evidence of conformance.
func requireOutput(t *T, msgs []inboundMessage, problems map[lineKind][]inboundMessage) {
	n := len(msgs)
	for _, lines := range problems {
		n += len(lines)
	}
	if n == 0 {
		t.NotVerified("the server wrote nothing to stdout, so there is no line to judge")
	}
}

// discardedLine reads the transcript text of a line the runner discarded
// for its length: the head it kept and the line's size.
func discardedLine(text string) (head string, size int, ok bool) {
	m := discardedMark.FindStringSubmatchIndex(text)
	if m == nil {
		return "", 0, false
	}
	size, err := strconv.Atoi(text[m[2]:m[3]])
	if err != nil {
		return "", 0, false
	}
	return text[:m[0]], size, true
}

var discardedMark = regexp.MustCompile(`… \[line of (\d+) bytes discarded\]$`)

// maxLineBytes is the line limit in effect for the run.
func (t *T) maxLineBytes() int {
	if n := t.env.eng.opts.MaxLineBytes; n > 0 {
		return n
	}
	return runner.DefaultMaxLineBytes
}

// moreLines counts, for a message about the first of n lines, the rest.
func moreLines(n int) string {
	switch n {
	case 1:
		return ""
	case 2:
		return ", and 1 more such line"
	}
	return fmt.Sprintf(", and %d more such lines", n-1)
}

// clip shortens a line for a one-line message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// describeID renders a JSON id for messages: its JSON text and type.
func describeID(v any) string {
	switch v.(type) {
	case string:
		return fmt.Sprintf("%q (string)", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v (number)", v)
}

// eofExit starts a process from cfg, makes one request of it and closes its
// stdin, returning how it ended.
func eofExit(t *T, cfg runner.Config) runner.Exit {
	c := t.freshWith(cfg)
	c.MustRequest(protocol.MethodDiscover, nil)
	return closeTimed(t, c)
}

// closeTimed closes c's stdin, and the rest of the shutdown sequence as
// needed, and records how long it took.
func closeTimed(t *T, c *Conn) runner.Exit {
	began := time.Now()
	exit := c.Close()
	t.Metric("exitMs", ms(time.Since(began)))
	return exit
}
