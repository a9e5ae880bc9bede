//go:build linux

package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentrunway/runway/internal/demo"
)

// readmeInstant is the demo instant the README's printed examples show.
const readmeInstant = "2026-11-20T13:35:00Z"

// TestReadmeExamples runs what the README tells a user to type, as they would
// type it, in a home holding the demo history: every example of the commands
// table, the printed `$ runway …` blocks (their output compared line for line,
// at the demo instant they show) and the gate. A README example that no case
// here knows fails the test, so the README cannot promise a command that does
// not run.
func TestReadmeExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("starts runway as a child process for each example")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := readmeTableExamples(string(readme))
	if len(examples) < 8 {
		t.Fatalf("the README's commands table gave %d examples: %q", len(examples), examples)
	}

	// Each example: what it must print (a pattern on stdout or stderr), and
	// whether it keeps running (then it must answer SIGTERM with exit 0).
	type want struct {
		stdout, stderr string
		code           int
		stays          bool
	}
	wants := map[string]want{
		"runway":            {stays: true},
		"runway now --long": {stdout: `(?m)^claude 5h 58% .*\n  5h +58% used`},
		"runway watch":      {stderr: `runway now`, code: 1},
		"runway statusline --then '~/.claude/my-status.sh'": {stdout: `^\[mine\]`},
		"runway setup --yes":                   {stdout: `runway statusline`},
		"runway serve --listen 127.0.0.1:4318": {stays: true},
		"runway doctor":                        {stdout: `(?m)^settings$`, code: -1},
		"runway autostart on":                  {stdout: `^autostart on: `},
		"runway now --demo --long":             {stdout: `shop-api \+1 agent`},
		"runway version":                       {stdout: `^runway `},
	}

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The table's examples run on a history that ends now, as a user's
	// would; the printed ones at the demo instant they show.
	h, env := readmeHome(t, self, time.Now())
	hp, envp := readmeHome(t, self, time.Date(2026, 11, 20, 13, 35, 0, 0, time.UTC))
	stdin := `{"session_id":"7d0c6a52-5a8e-4e43-9c55-1f3b0c3e9a01","model":{"id":"claude-opus-4-5-20251101","display_name":"Opus 4.5"}}`

	for _, ex := range examples {
		w, ok := wants[ex]
		if !ok {
			t.Errorf("the README shows %q, which this test does not run: add it here", ex)
			continue
		}
		t.Run(ex, func(t *testing.T) {
			line := ex
			if strings.Contains(ex, "serve --listen") {
				// The address as shown, but on a port free here.
				line = strings.Replace(ex, "127.0.0.1:4318", freePort(t), 1)
			}
			cmd := exec.Command("sh", "-c", "exec "+line)
			cmd.Env, cmd.Dir = env, h
			cmd.Stdin = strings.NewReader(stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout = &stdout
			if w.stays {
				// Started, it says so on stderr; then it must stop cleanly.
				pr, pw := io.Pipe()
				cmd.Stderr = pw
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				first := make(chan string, 1)
				go func() {
					line, _ := bufio.NewReader(pr).ReadString('\n')
					first <- line
					io.Copy(&stderr, pr)
				}()
				select {
				case l := <-first:
					if strings.Contains(l, "error") {
						t.Errorf("%s said %q", ex, l)
					}
				case <-time.After(time.Minute):
					t.Errorf("%s printed nothing in a minute", ex)
				}
				cmd.Process.Signal(syscall.SIGTERM)
				err := cmd.Wait()
				pw.Close()
				if err != nil {
					t.Errorf("%s after SIGTERM: %v; stderr:\n%s", ex, err, stderr.String())
				}
				return
			}
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if w.code >= 0 && code != w.code || w.code < 0 && code > 1 {
				t.Errorf("%s exited %d (%v), want %d; stderr:\n%s", ex, code, err, w.code, stderr.String())
			}
			if w.stdout != "" && !regexp.MustCompile(w.stdout).Match(stdout.Bytes()) {
				t.Errorf("%s printed %q, want it to match %q; stderr:\n%s", ex, stdout.String(), w.stdout, stderr.String())
			}
			if w.stderr != "" && !regexp.MustCompile(w.stderr).Match(stderr.Bytes()) {
				t.Errorf("%s said %q on stderr, want it to match %q", ex, stderr.String(), w.stderr)
			}
		})
	}

	// The printed examples: the command, at the demo instant, prints exactly
	// the lines shown.
	for cmdline, out := range readmePrinted(string(readme)) {
		cmd := exec.Command("sh", "-c", "exec "+cmdline+" --at "+readmeInstant)
		cmd.Env, cmd.Dir = envp, hp
		got, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: %v", cmdline, err)
		}
		if string(got) != out {
			t.Errorf("the README shows\n$ %s\n%s\nbut it prints\n%s", cmdline, out, got)
		}
	}

	// The gate, as shown: the demo's Claude window runs out before its reset.
	gate := readmeBlockAfter(t, string(readme), "A gate for an orchestrator")
	cmd := exec.Command("sh", "-c", gate)
	cmd.Env, cmd.Dir = env, h
	got, _ := cmd.Output()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(got), "not spawning") {
		t.Errorf("the README's gate exited %d printing %q over the demo, want 1 and its message", cmd.ProcessState.ExitCode(), got)
	}
}

// readmeHome is a home as a user's: runway on PATH, outside Go's build
// folders (autostart refuses those), the demo history ending at end, a
// statusline script of their own; and the environment that points there.
func readmeHome(t *testing.T, self string, end time.Time) (string, []string) {
	h := t.TempDir()
	bin := filepath.Join(h, "bin")
	home := filepath.Join(h, "home")
	for _, d := range []string{bin, filepath.Join(home, ".claude")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, self, filepath.Join(bin, "runway"), 0o755)
	if err := demo.Write(h, end); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "my-status.sh"), []byte("#!/bin/sh\necho '[mine]'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := childEnv("HOME="+home, "PATH="+bin+":/usr/bin:/bin", "TZ=UTC",
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(h, "no-bus"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(h, "claude"), "CODEX_HOME="+filepath.Join(h, "codex"),
		"RUNWAY_STATE_DIR="+filepath.Join(h, "state"), "RUNWAY_CLAUDE_CACHE_DIR="+filepath.Join(h, "no-cache"))
	return h, env
}

// readmeTableExamples is the last code span of each row of the README's
// commands table.
func readmeTableExamples(readme string) []string {
	_, table, _ := strings.Cut(readme, "\n## Commands\n")
	table, _, _ = strings.Cut(table, "\n\n```")
	span := regexp.MustCompile("`([^`]+)`")
	var out []string
	for _, row := range strings.Split(table, "\n") {
		if !strings.HasPrefix(row, "| `runway") {
			continue
		}
		cells := strings.Split(row, " | ")
		m := span.FindAllStringSubmatch(cells[len(cells)-1], -1)
		if m != nil {
			out = append(out, m[len(m)-1][1])
		}
	}
	return out
}

// readmePrinted is each fenced block that starts with "$ runway …": the
// command and the lines it prints.
func readmePrinted(readme string) map[string]string {
	out := map[string]string{}
	for _, block := range strings.Split(readme, "```\n")[1:] {
		first, rest, ok := strings.Cut(block, "\n")
		if cmd, isCmd := strings.CutPrefix(first, "$ runway"); ok && isCmd {
			out["runway"+cmd] = rest
		}
	}
	return out
}

// readmeBlockAfter is the fenced block that follows the paragraph starting
// with lead.
func readmeBlockAfter(t *testing.T, readme, lead string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "\n"+lead)
	if !ok {
		t.Fatalf("the README has no %q", lead)
	}
	_, after, _ = strings.Cut(after, "```\n")
	block, _, _ := strings.Cut(after, "```")
	return block
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}
