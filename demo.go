package runway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/demo"
	"github.com/agentrunway/runway/tail"
)

// Demo runs the real pipeline over the built-in sample history ending at
// now, reading nothing of the user's.
func Demo(ctx context.Context, cfg Config, now time.Time) (burn.Snapshot, error) {
	d, err := OpenDemo(cfg, now)
	if err != nil {
		return burn.Snapshot{}, err
	}
	defer d.Close()
	return d.Env.Evaluate(ctx, EvalOptions{Now: func() time.Time { return now }}).Snapshot, nil
}

// DemoHistory is the sample history in a temporary folder of its own, for
// an Engine (tray --demo, watch --demo).
type DemoHistory struct {
	Env Env // reads the history and nothing of the user's
	dir string
}

// OpenDemo writes the sample history ending at end; Close removes it.
func OpenDemo(cfg Config, end time.Time) (*DemoHistory, error) {
	dir, err := os.MkdirTemp("", "runway-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	env, err := DemoEnv(dir, cfg, end)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &DemoHistory{Env: env, dir: dir}, nil
}

// Close removes the history's folder.
func (d *DemoHistory) Close() error { return os.RemoveAll(d.dir) }

// DemoEnv writes the sample history ending at end into dir and returns the
// Env that reads it and nothing of the user's: no logs, cache or network.
func DemoEnv(dir string, cfg Config, end time.Time) (Env, error) {
	if err := demo.Write(dir, end); err != nil {
		return Env{}, fmt.Errorf("demo: %w", err)
	}
	cfg.Offline = true
	cfg.Roots = RootsConfig{}
	return Env{
		Config:         cfg,
		Roots:          tail.Roots{Claude: []string{filepath.Join(dir, "claude")}, Codex: []string{filepath.Join(dir, "codex")}},
		StateDir:       filepath.Join(dir, "state"),
		Home:           dir,
		ClaudeCacheDir: filepath.Join(dir, "cache"),
	}, nil
}
