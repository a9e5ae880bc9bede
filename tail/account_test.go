package tail

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// Two Claude config folders under two logins: each root's events,
// activity and samples carry its login, so the burn keeps their windows
// apart; without Options.Account nothing is stamped.
func TestUsageStampsEachRootsLogin(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	copyFile(t, filepath.Join("testdata", "claude", "streamed-duplicates.jsonl"), filepath.Join(work, "projects", "-w", "a.jsonl"))
	copyFile(t, filepath.Join("testdata", "claude", "limit-hit.jsonl"), filepath.Join(home, "projects", "-h", "b.jsonl"))
	roots := Roots{Claude: []string{work, home}}
	login := map[string]string{work: "aaaa1111", home: "bbbb2222"}
	asked := 0
	tl := New(Options{Roots: roots, CacheReadWeight: burn.DefaultCacheReadWeight, Account: func(root string) string {
		asked++
		return login[root]
	}})
	if err := tl.Scan(time.Now()); err != nil {
		t.Fatal(err)
	}
	u := tl.Usage(time.Time{})
	if len(u.Events) == 0 || len(u.Samples) == 0 || len(u.Activity) == 0 {
		t.Fatalf("fixtures read as %d events, %d samples, %d activity", len(u.Events), len(u.Samples), len(u.Activity))
	}
	for _, e := range u.Events {
		if e.Account != "aaaa1111" {
			t.Errorf("event of the work root under login %q", e.Account)
		}
	}
	for _, s := range u.Samples {
		if s.Account != "bbbb2222" {
			t.Errorf("limit hit of the home root under login %q", s.Account)
		}
	}
	for _, a := range u.Activity {
		if a.Account != "aaaa1111" && a.Account != "bbbb2222" {
			t.Errorf("activity %+v names no login", a)
		}
	}
	if asked > len(roots.Claude) {
		t.Errorf("the login was asked %d times for %d roots", asked, len(roots.Claude))
	}

	for _, e := range coldRead(t, roots).Events {
		if e.Account != "" {
			t.Errorf("stamped %q without Options.Account", e.Account)
		}
	}
}
