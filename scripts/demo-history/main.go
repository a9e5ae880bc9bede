// Command demo-history writes runway's built-in demo history, ending now,
// into a folder laid out as the agents and runway keep it:
//
//	go run ./scripts/demo-history DIR
//	CLAUDE_CONFIG_DIR=DIR/claude CODEX_HOME=DIR/codex RUNWAY_STATE_DIR=DIR/state runway tray
//
// It serves scripts/screenshot.sh and measurements of the tray; it is not
// part of runway (`runway demo` shows the same story without a folder).
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/agentrunway/runway/internal/demo"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] == "" || os.Args[1][0] == '-' {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/demo-history DIR")
		os.Exit(2)
	}
	if err := demo.Write(os.Args[1], time.Now()); err != nil {
		fmt.Fprintf(os.Stderr, "demo-history: %v\n", err)
		os.Exit(1)
	}
}
