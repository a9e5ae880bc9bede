package runway

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agentrunway/runway/burn"
)

// Config is every setting runway has. Flags override the config file, which
// overrides DefaultConfig.
type Config struct {
	CacheReadWeight float64 `toml:"cache_read_weight"` // the share of a cache-read token that counts
	// Lookback covers the 5-hour window and the burst that straddles its start.
	Lookback  Duration `toml:"lookback"`
	Offline   bool     `toml:"offline"`    // no network call at all
	CodexPath string   `toml:"codex_path"` // "" is codex on $PATH

	Thresholds    Thresholds    `toml:"thresholds"`
	Notifications Notifications `toml:"notifications"`
	Roots         RootsConfig   `toml:"roots"`
	Tray          TrayConfig    `toml:"tray"`
	Serve         ServeConfig   `toml:"serve"`
}

// ServeConfig is the listener of `runway serve` (and of the tray when set).
type ServeConfig struct {
	// Listen "" is DefaultListen for `runway serve`, no listener for the tray.
	Listen string `toml:"listen"`
	// Token is required beyond loopback; RUNWAY_SERVE_TOKEN overrides it.
	Token string `toml:"token"`
	// NoticeCommand gets each notice's summary and body as two more arguments.
	NoticeCommand []string `toml:"notice_command"`
}

// Thresholds tune the verdicts.
type Thresholds struct {
	LowPercent float64 `toml:"low_percent"` // remaining percent at or below which a window is low
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

// ConfigPath is $RUNWAY_CONFIG, else $XDG_CONFIG_HOME/runway/config.toml,
// else the OS's config folder (%APPDATA% on Windows: settings roam, state not).
func ConfigPath(getenv func(string) string) string {
	return configPathOn(runtime.GOOS, getenv)
}

func configPathOn(goos string, getenv func(string) string) string {
	if p := getenv("RUNWAY_CONFIG"); p != "" {
		return p
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "runway", "config.toml")
	}
	if a := getenv("APPDATA"); goos == "windows" && a != "" {
		return filepath.Join(a, "runway", "config.toml")
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "runway", "config.toml")
	}
	return filepath.Join(homeDir(getenv), ".config", "runway", "config.toml")
}

// StateDir is $RUNWAY_STATE_DIR, else $XDG_STATE_HOME/runway, else
// ~/.local/state/runway; %LOCALAPPDATA%\runway on Windows (not roamed).
func StateDir(getenv func(string) string) string {
	return stateDirOn(runtime.GOOS, getenv)
}

func stateDirOn(goos string, getenv func(string) string) string {
	if p := getenv("RUNWAY_STATE_DIR"); p != "" {
		return p
	}
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "runway")
	}
	if l := getenv("LOCALAPPDATA"); goos == "windows" && l != "" {
		return filepath.Join(l, "runway")
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

// loadConfig reads the file at path over DefaultConfig; a missing file is
// no error, a bad one names the line and what to do.
func loadConfig(path string) (Config, error) {
	c := DefaultConfig()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read config %s: %w (make it a file runway can read, or point RUNWAY_CONFIG elsewhere)", path, err)
	}
	text := string(b)
	md, err := toml.Decode(text, &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return c, fmt.Errorf("config %s, line %d: %s (fix or remove that line)", path, pe.Position.Line, pe.Message)
		}
		// Type mismatches come as plain errors that name the line.
		if m := tomlLine().FindStringSubmatch(err.Error()); m != nil {
			return c, fmt.Errorf("config %s, line %s: %s (fix or remove that line)", path, m[1], m[2])
		}
		return c, fmt.Errorf("config %s: %w (fix the file or remove it)", path, err)
	}
	// Every unknown key at once (a newer version's file may have several),
	// but not the keys of an unknown table.
	var unknown []string
	for _, k := range md.Undecoded() {
		if p, _, ok := strings.Cut(k.String(), "."); !ok || !slices.Contains(unknown, p) {
			unknown = append(unknown, k.String())
		}
	}
	if len(unknown) == 1 {
		k := unknown[0]
		return c, fmt.Errorf("config %s%s: unknown setting %s (see the README's Configuration section)", path, at(text, k), k)
	} else if len(unknown) > 1 {
		var keys []string
		for _, k := range unknown {
			where := at(text, k)
			if where != "" {
				where = " (" + strings.TrimPrefix(where, ", ") + ")"
			}
			keys = append(keys, k+where)
		}
		return c, fmt.Errorf("config %s: unknown settings %s (see the README's Configuration section)", path, strings.Join(keys, ", "))
	}
	if key, msg := c.invalid(); key != "" {
		return c, fmt.Errorf("config %s%s: %s", path, at(text, key), msg)
	}
	return c, nil
}

var tomlLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^toml: line (\d+)(?: \(last key "[^"]*"\))?: (.*)$`)
})

// at is ", line N" for the line that sets key (a dotted path), or "".
func at(text, key string) string {
	table, name := "", key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		table, name = key[:i], key[i+1:]
	}
	current := ""
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			if header, _, _ := strings.Cut(line, "#"); strings.HasSuffix(strings.TrimSpace(header), "]") {
				current = strings.TrimSpace(strings.Trim(strings.TrimSpace(header), "[]"))
				if key == current {
					return fmt.Sprintf(", line %d", i+1) // an unknown table
				}
				continue
			}
		}
		if current != table {
			continue
		}
		if k, _, ok := strings.Cut(line, "="); ok && strings.Trim(strings.TrimSpace(k), `"`) == name {
			return fmt.Sprintf(", line %d", i+1)
		}
	}
	return ""
}

// invalid names the first setting out of range and why; NaN fails every check.
func (c Config) invalid() (key, msg string) {
	switch {
	case !(c.CacheReadWeight >= 0 && c.CacheReadWeight <= 1):
		return "cache_read_weight", fmt.Sprintf("cache_read_weight = %v: want a share between 0 and 1", c.CacheReadWeight)
	case time.Duration(c.Lookback) < time.Hour:
		return "lookback", fmt.Sprintf("lookback = %v: want 1h or more (6h covers the 5-hour window and the burst before it)", time.Duration(c.Lookback))
	case !(c.Thresholds.LowPercent >= 0 && c.Thresholds.LowPercent < 100):
		return "thresholds.low_percent", fmt.Sprintf("thresholds.low_percent = %v: want 0 to 99", c.Thresholds.LowPercent)
	case time.Duration(c.Notifications.MinInterval) < 0:
		return "notifications.min_interval", fmt.Sprintf("notifications.min_interval = %v: want 0s or more", time.Duration(c.Notifications.MinInterval))
	case c.Tray.SessionList != "auto" && c.Tray.SessionList != "always" && c.Tray.SessionList != "never":
		return "tray.session_list", fmt.Sprintf("tray.session_list = %q: want \"auto\", \"always\" or \"never\"", c.Tray.SessionList)
	case c.Serve.Listen != "" && !validListen(c.Serve.Listen):
		return "serve.listen", fmt.Sprintf("serve.listen = %q: want host:port, like \"127.0.0.1:4318\"", c.Serve.Listen)
	case c.Tray.MaxSessions < 1:
		return "tray.max_sessions", fmt.Sprintf("tray.max_sessions = %d: want 1 or more", c.Tray.MaxSessions)
	}
	return "", ""
}
