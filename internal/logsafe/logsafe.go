// Package logsafe keeps text from GitHub and from pull requests' artifacts from issuing
// workflow commands when the action prints it to the step log.
//
// The runner reads a step's stdout line by line and treats a line as a command when, after
// leading white space, it starts with "::" (::warning::, ::add-mask::, ::set-output ...,
// ::stop-commands::), and when "##[" appears anywhere in it (the older command syntax). Text
// a pull request controls (titles, bodies, branch names, check-run names and outputs, zip
// entry names inside artifacts, error messages GitHub echoes) must never produce such a line.
// Escape is the one function every such string goes through before it reaches stdout or an
// annotation; Printf, Lines and Command apply it at the sink so callers cannot forget.
package logsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

var escaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", "##[", "#%23[")

// Escape returns s as one line that the runner never reads as a workflow command, however it
// is printed: on a line of its own, inside a line, or as the data of ::error:: and ::warning::.
//
//   - "%", CR and LF become %25, %0D and %0A, the runner's own escapes for command data (an
//     annotation shows them unescaped); so the text stays on one line;
//   - "##[" becomes "#%23[", so no old-style command starts inside it;
//   - a ":" that starts the text (after white space) becomes %3A, so the text cannot begin a
//     "::" command even when it is printed at the start of a line.
//
// The escaping is reversible ("%" is escaped first) and the identity on ordinary text.
func Escape(s string) string {
	s = escaper.Replace(s)
	rest := strings.TrimLeftFunc(s, unicode.IsSpace)
	if strings.HasPrefix(rest, ":") {
		lead := len(s) - len(rest)
		s = s[:lead] + "%3A" + rest[1:]
	}
	return s
}

// Printf writes one log line: the formatted text passed through Escape, then a newline. The
// whole line is escaped, not only the arguments, so no concatenation of a format and an
// argument can form a command either.
func Printf(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, Escape(fmt.Sprintf(format, args...)))
}

// Lines writes multi-line text whose line structure is the action's own (a joined error, a
// Markdown report): each line passes through Escape, so a line that came from untrusted text
// cannot start a command.
func Lines(w io.Writer, text string) {
	text = strings.TrimSuffix(text, "\n")
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintln(w, Escape(strings.TrimSuffix(line, "\r")))
	}
}

// Command writes the workflow command ::name::message (error, warning, notice) with message
// passed through Escape.
func Command(w io.Writer, name, message string) {
	fmt.Fprintf(w, "::%s::%s\n", name, Escape(message))
}
