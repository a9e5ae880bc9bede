package runway

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agentrunway/runway/burn"
)

// Config is every setting runway has. Flags override the config file, which
// overrides DefaultConfig.
type Config struct {
	// CacheReadWeight is the share of a cache-read token that counts.
	CacheReadWeight float64 `toml:"cache_read_weight"`
	// Lookback is how far back a cold start reads: the 5-hour window plus a
	// margin for the burst that straddles its start.
	Lookback Duration `toml:"lookback"`
	// Offline turns off every network call (the Claude usage endpoint and
	// the Codex app-server, which calls OpenAI).
	Offline bool `toml:"offline"`
	// CodexPath is the codex binary used for the app-server ("" = $PATH).
	CodexPath string `toml:"codex_path"`

	Thresholds    Thresholds    `toml:"thresholds"`
	Notifications Notifications `toml:"notifications"`
	Roots         RootsConfig   `toml:"roots"`
	Tray          TrayConfig    `toml:"tray"`
}

// Thresholds tune the verdicts.
type Thresholds struct {
	// LowPercent: remaining percent at or below which a window is low.
	LowPercent float64 `toml:"low_percent"`
}

// Notifications switch desktop notifications by kind.
type Notifications struct {
	Enabled     bool     `toml:"enabled"`
	BurningFast bool     `toml:"burning_fast"`
	Low         bool     `toml:"low"`
	Exhausted   bool     `toml:"exhausted"`
	Reset       bool     `toml:"reset"`
	MinInterval Duration `toml:"min_interval"` // at most one notification per interval
}

// RootsConfig replaces the discovered agent folders when set.
type RootsConfig struct {
	Claude []string `toml:"claude"`
	Codex  []string `toml:"codex"`
}

// TrayConfig shapes the tray menu.
type TrayConfig struct {
	SessionList string `toml:"session_list"` // auto, always or never
	MaxSessions int    `toml:"max_sessions"` // rows per provider before "+N sessions"
}

// DefaultConfig is what runway does with no config file and no flags.
func DefaultConfig() Config {
	return Config{
		CacheReadWeight: burn.DefaultCacheReadWeight,
		Lookback:        Duration(6 * time.Hour),
		Thresholds:      Thresholds{LowPercent: burn.DefaultConfig().LowPercent},
		Notifications: Notifications{
			Enabled: true, BurningFast: true, Low: true, Exhausted: true,
			MinInterval: Duration(2 * time.Minute),
		},
		Tray: TrayConfig{SessionList: "auto", MaxSessions: 5},
	}
}

// Burn is the burn model's share of the settings.
func (c Config) Burn() burn.Config {
	b := burn.DefaultConfig()
	b.LowPercent = c.Thresholds.LowPercent
	b.NotifyReset = c.Notifications.Reset
	return b
}

// Duration is a time.Duration written as "90s", "6h" in the config file.
type Duration time.Duration

// UnmarshalText reads a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("want a duration like \"90s\" or \"6h\": %w", err)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// ConfigPath is where the config file lives: $RUNWAY_CONFIG, else
// $XDG_CONFIG_HOME/runway/config.toml, else the OS's config folder.
func ConfigPath(getenv func(string) string) string {
	if p := getenv("RUNWAY_CONFIG"); p != "" {
		return p
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "runway", "config.toml")
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "runway", "config.toml")
	}
	return filepath.Join(homeDir(getenv), ".config", "runway", "config.toml")
}

// StateDir is where runway keeps its own files: $RUNWAY_STATE_DIR, else
// $XDG_STATE_HOME/runway, else ~/.local/state/runway.
func StateDir(getenv func(string) string) string {
	if p := getenv("RUNWAY_STATE_DIR"); p != "" {
		return p
	}
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "runway")
	}
	return filepath.Join(homeDir(getenv), ".local", "state", "runway")
}

func homeDir(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	if h := getenv("USERPROFILE"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// LoadConfig reads the config file at path over DefaultConfig. A missing
// file is not an error; a bad one is, naming the line and what to do.
func LoadConfig(path string) (Config, error) {
	c := DefaultConfig()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read config %s: %w", path, err)
	}
	md, err := toml.Decode(string(b), &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return c, fmt.Errorf("config %s, line %d: %s (fix or remove that line)", path, pe.Position.Line, pe.Message)
		}
		return c, fmt.Errorf("config %s: %w (fix the file or remove it)", path, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		keys := make([]string, len(un))
		for i, k := range un {
			keys[i] = k.String()
		}
		return c, fmt.Errorf("config %s: unknown setting %s (see the README's Configuration section)", path, strings.Join(keys, ", "))
	}
	return c, c.validate(path)
}

func (c Config) validate(path string) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("config %s: "+format, append([]any{path}, a...)...)
	}
	switch {
	case c.CacheReadWeight < 0 || c.CacheReadWeight > 1:
		return bad("cache_read_weight = %v: want a share between 0 and 1", c.CacheReadWeight)
	case time.Duration(c.Lookback) < time.Hour:
		return bad("lookback = %v: want at least 1h (the 5-hour window needs 5h30m)", time.Duration(c.Lookback))
	case c.Thresholds.LowPercent < 0 || c.Thresholds.LowPercent >= 100:
		return bad("thresholds.low_percent = %v: want 0 to 99", c.Thresholds.LowPercent)
	case c.Tray.SessionList != "auto" && c.Tray.SessionList != "always" && c.Tray.SessionList != "never":
		return bad("tray.session_list = %q: want \"auto\", \"always\" or \"never\"", c.Tray.SessionList)
	case c.Tray.MaxSessions < 1:
		return bad("tray.max_sessions = %d: want 1 or more", c.Tray.MaxSessions)
	}
	return nil
}
