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
