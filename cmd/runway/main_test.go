package main

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentrunway/runway/internal/demo"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		// main itself, signal handling included (the pty tests send SIGTERM).
		"runway": main,
	})
}

// runwayCommand is main as a child process, for the end-to-end tests:
// testscript.Main put the test binary on PATH as "runway", and started
// under that name it runs main (the one way a test runs main as a child).
func runwayCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	path, err := exec.LookPath("runway")
	if err != nil {
		t.Fatalf("the test binary as runway: %v", err)
	}
	return exec.Command(path, args...)
}

// TestScripts runs the CLI scripts in testdata/script: each is a command, its
// expected output and inline files, so reading one tells what runway does.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// No script may see the developer's own agents, state or desktop.
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/home/.config")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/home/.local/state")
			env.Setenv("TZ", "UTC")
			env.Setenv("RUNWAY_CLAUDE_CACHE_DIR", env.WorkDir+"/claude-cache")
			env.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+env.WorkDir+"/no-bus")
			env.Setenv("PATH", env.WorkDir+"/bin:"+os.Getenv("PATH"))
			// runway refuses a HOME that is not a folder.
			return os.MkdirAll(env.WorkDir+"/home", 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// demo-history DIR END writes the built-in history ending at END.
			"demo-history": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: demo-history DIR RFC3339")
				}
				end, err := time.Parse(time.RFC3339, args[1])
				ts.Check(err)
				ts.Check(demo.Write(ts.MkAbs(args[0]), end))
			},
		},
	})
}

// lockedBuffer collects a child's output written from its own goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// childEnv is the test's environment for a runway child, without what would
// point it at the developer's agents, state, config or desktop (or say CI),
// then set (a later value of a name wins).
func childEnv(set ...string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return strings.HasPrefix(k, "RUNWAY_") || slices.Contains([]string{"CI", "HOME", "TZ", "DISPLAY", "WAYLAND_DISPLAY",
			"XDG_SESSION_TYPE", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
			"DBUS_SESSION_BUS_ADDRESS", "CLAUDE_CONFIG_DIR", "CODEX_HOME"}, k)
	})
	return append(env, set...)
}

// exitOf is cmd's exit once it ends; still running after wait fails the test.
func exitOf(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		return err
	case <-time.After(wait):
		cmd.Process.Kill()
		t.Fatalf("%v still running after %v", cmd.Args[1:], wait)
		return nil
	}
}

// wait bounds every wait on a real process: it waits for a result, never
// for a time.
const wait = 90 * time.Second

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
