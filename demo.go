package runway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/tail"
)

// Demo runs the real pipeline with the settings of cfg over the built-in
// sample history, moved so that it ends at now, in a temporary folder it
// removes afterwards. Nothing of the user's is read: not their logs, not the
// shared cache, not the network.
func Demo(ctx context.Context, cfg Config, now time.Time) (burn.Snapshot, error) {
	env, cleanup, err := DemoEnv(cfg, now)
	if err != nil {
		return burn.Snapshot{}, err
	}
	defer cleanup()
	return env.Evaluate(ctx, EvalOptions{Now: func() time.Time { return now }}).Snapshot, nil
}

// DemoEnv writes the built-in sample history, moved to end at now, into a
// temporary folder and returns an Env that reads only it (offline, its own
// state folder), for `runway demo` and `runway tray --demo`. cleanup removes
// the folder.
func DemoEnv(cfg Config, now time.Time) (env Env, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "runway-demo-")
	if err != nil {
		return Env{}, nil, fmt.Errorf("demo: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := synth.WriteDemo(dir, now); err != nil {
		cleanup()
		return Env{}, nil, fmt.Errorf("demo: %w", err)
	}
	cfg.Offline = true
	cfg.Roots = RootsConfig{}
	return Env{
		Config:         cfg,
		Roots:          tail.Roots{Claude: []string{filepath.Join(dir, "claude")}, Codex: []string{filepath.Join(dir, "codex")}},
		StateDir:       filepath.Join(dir, "state"),
		Home:           dir,
		ClaudeCacheDir: filepath.Join(dir, "cache"),
	}, cleanup, nil
}
