package tray

import (
	"strings"
	"testing"
)

func TestDesktopEntry(t *testing.T) {
	got, err := desktopEntry("/opt/my apps/runway", []string{"tray", `50%`, `a"b$c\d`})
	if err != nil {
		t.Fatal(err)
	}
	want := `Exec="/opt/my apps/runway" tray 50%% "a\\"b\\$c\\\\d"` + "\n"
	if !strings.Contains(got, want) {
		t.Errorf("entry:\n%s\nwant a line %s", got, want)
	}
	if _, err := desktopEntry("/bin/run\nway", nil); err == nil {
		t.Error("a line break went into the Exec line")
	}
}

func TestSystemdUnit(t *testing.T) {
	got, err := systemdUnit("/opt/my apps/runway", []string{"tray", "$HOME", "5%"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`ExecStart="/opt/my apps/runway" tray $$HOME 5%%` + "\n",
		"WantedBy=graphical-session.target\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("unit:\n%s\nwant a line %s", got, want)
		}
	}
}

func TestLaunchAgent(t *testing.T) {
	got := launchAgent("/Applications/run & way/runway", []string{"tray"})
	for _, want := range []string{
		"<string>" + launchAgentLabel + "</string>",
		"<string>/Applications/run &amp; way/runway</string>\n\t\t<string>tray</string>",
		"<key>RunAtLoad</key>\n\t<true/>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("plist:\n%s\nwant %s", got, want)
		}
	}
}

func TestAutostartAction(t *testing.T) {
	if _, err := Autostart("maybe", AutostartOptions{Dir: t.TempDir()}); err == nil {
		t.Error("an unknown action was accepted")
	}
}

func TestTemporaryBuild(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build1234567/b001/exe/runway":                            true,
		`C:\Users\ada\AppData\Local\Temp\go-build987\b001\exe\runway.exe`: true,
		"/home/ada/go/bin/runway":                                         false,
		"/home/ada/src/go-builder/runway":                                 false,
		`C:\Users\ada\go\bin\runway.exe`:                                  false,
		// go run since Go 1.24: the build cache, default or GOCACHE.
		"/home/ada/.cache/go-build/47/47918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d/runway":               true,
		"/Users/ada/Library/Caches/go-build/0a/0a918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d/runway":      true,
		`C:\Users\ada\AppData\Local\go-build\ff\ff918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d\runway.exe`: true,
		"/srv/cache/9c/9c918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d/runway":                              true,
		"/opt/ab/cdef/runway": false,
		"/opt/ab/47918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d": false,
	} {
		if got := temporaryBuild(exe); got != want {
			t.Errorf("temporaryBuild(%q) = %v, want %v", exe, got, want)
		}
	}
}
