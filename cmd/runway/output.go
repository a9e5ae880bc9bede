package main

// Output rules, for every subcommand:
//   - results go to stdout, and nothing else does;
//   - diagnostics go to stderr, prefixed "runway: ", lower case, no final period;
//   - every error a person sees says what to do next (errorWithHint).

import (
	"fmt"
	"io"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
)

// exitError carries an exit status up to main after its message was printed.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// hinted is an error with the next step a person can take.
type hinted struct {
	err   error
	hints []string
}

func (h hinted) Error() string { return h.err.Error() }
func (h hinted) Unwrap() error { return h.err }

func errorWithHint(err error, hints ...string) error { return hinted{err, hints} }

type printer struct{ stderr io.Writer }

// warningf prints a warning; what it says may come from a file (a path,
// a snapshot's text), so it is made printable.
func (p printer) warningf(format string, a ...any) {
	fmt.Fprintf(p.stderr, "runway: warning: %s\n", printable.String(fmt.Sprintf(format, a...)))
}

// notef says what runway does, where it is not plain from the output.
func (p printer) notef(format string, a ...any) {
	fmt.Fprintf(p.stderr, "runway: %s\n", fmt.Sprintf(format, a...))
}

func (p printer) errorf(err error) {
	fmt.Fprintf(p.stderr, "runway: error: %v\n", err)
	if h, ok := err.(hinted); ok {
		for _, hint := range h.hints {
			fmt.Fprintf(p.stderr, "runway: %s\n", hint)
		}
	}
}

// newestSnapshot is a channel holding only the newest snapshot and its
// publisher: a slow surface drops the ones in between.
func newestSnapshot() (<-chan burn.Snapshot, func(burn.Snapshot)) {
	updates := make(chan burn.Snapshot, 1)
	return updates, func(s burn.Snapshot) {
		for {
			select {
			case updates <- s:
				return
			default:
				select {
				case <-updates:
				default:
				}
			}
		}
	}
}
