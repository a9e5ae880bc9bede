package runway

import (
	"path/filepath"
	"testing"
)

// TestFoldersByOS: Windows keeps the state machine-local under
// %LOCALAPPDATA%\runway and the config roaming under
// %APPDATA%\runway\config.toml (it once went to C:\Users\X\.local\state);
// elsewhere the XDG folders; $RUNWAY_* and $XDG_* win everywhere.
func TestFoldersByOS(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	win := env("USERPROFILE", `C:\Users\ada`, "LOCALAPPDATA", `C:\Users\ada\AppData\Local`, "APPDATA", `C:\Users\ada\AppData\Roaming`)
	for _, c := range []struct {
		name, got, want string
	}{
		{"windows state", stateDirOn("windows", win), filepath.Join(`C:\Users\ada\AppData\Local`, "runway")},
		{"windows config", configPathOn("windows", win), filepath.Join(`C:\Users\ada\AppData\Roaming`, "runway", "config.toml")},
		{"windows, RUNWAY_STATE_DIR", stateDirOn("windows", env("LOCALAPPDATA", `C:\L`, "RUNWAY_STATE_DIR", `D:\s`)), `D:\s`},
		{"linux state", stateDirOn("linux", env("HOME", "/home/ada")), filepath.Join("/home/ada", ".local", "state", "runway")},
		{"linux, XDG_STATE_HOME", stateDirOn("linux", env("HOME", "/home/ada", "XDG_STATE_HOME", "/s")), filepath.Join("/s", "runway")},
		{"linux config", configPathOn("linux", env("HOME", "/home/ada", "XDG_CONFIG_HOME", "/c")), filepath.Join("/c", "runway", "config.toml")},
	} {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
	}
}
