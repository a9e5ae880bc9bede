package quota

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// cacheEnv is an offline ClaudeSources (no endpoint) with a shared cache
// folder of our own.
func cacheEnv(t *testing.T) (*ClaudeSources, *clock, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "claude")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	clk := newClock(t0)
	c := &ClaudeSources{Home: root, CacheDir: dir, StateDir: filepath.Join(root, "state"), Offline: true, Now: clk.Now}
	return c, clk, filepath.Join(dir, cacheName)
}

func writeCache(t *testing.T, path string, body []byte, mod time.Time) {
	t.Helper()
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
}

func cacheState(t *testing.T, c *ClaudeSources) ([]burn.Sample, SourceState) {
	t.Helper()
	samples, states := c.Poll(t.Context(), true)
	if states[3].State != StateOff {
		t.Fatalf("offline endpoint state = %+v", states[3])
	}
	return samples, states[1]
}

func TestCacheFreshAndStale(t *testing.T) {
	c, clk, path := cacheEnv(t)
	body := usageFile(t, "windows.json")
	writeCache(t, path, body, t0.Add(-10*time.Second))
	samples, st := cacheState(t, c)
	if st.State != StateOK || len(samples) != 2 || samples[0].Source != burn.SourceOAuthCache ||
		!samples[0].ObservedAt.Equal(t0.Add(-10*time.Second)) || samples[0].UsedPercent != 37 {
		t.Fatalf("fresh: %+v %+v", st, samples)
	}
	clk.Add(171 * time.Second) // 181 s old
	samples, st = cacheState(t, c)
	if st.State != StateStale || len(samples) != 0 {
		t.Fatalf("stale: %+v %+v", st, samples)
	}
}

func TestCacheTouchedKeepsObservation(t *testing.T) {
	c, clk, path := cacheEnv(t)
	body := usageFile(t, "windows.json")
	first := t0.Add(-5 * time.Second)
	writeCache(t, path, body, first)
	cacheState(t, c)

	// Touched, same content: still observed at the first time.
	touched := clk.Add(100 * time.Second)
	writeCache(t, path, body, touched)
	samples, st := cacheState(t, c)
	if st.State != StateOK || !samples[0].ObservedAt.Equal(first) {
		t.Fatalf("touched: %+v %+v", st, samples)
	}
	// Another process agrees (the first sight is in the state folder).
	other := &ClaudeSources{Home: c.Home, CacheDir: c.CacheDir, StateDir: c.StateDir, Offline: true, Now: clk.Now}
	if samples, _ := cacheState(t, other); !samples[0].ObservedAt.Equal(first) {
		t.Fatalf("other process: %+v", samples)
	}
	// Touched long after: the content is old, however new the file time.
	writeCache(t, path, body, clk.Add(100*time.Second))
	samples, st = cacheState(t, c)
	if st.State != StateStale || !samples[0].ObservedAt.Equal(first) {
		t.Fatalf("touched later: %+v %+v", st, samples)
	}
	// New content: a new observation.
	changed := bytes.Replace(body, []byte(`"utilization":37.0`), []byte(`"utilization":38.0`), 1)
	now := clk.Add(time.Second)
	writeCache(t, path, changed, now)
	samples, st = cacheState(t, c)
	if st.State != StateOK || !samples[0].ObservedAt.Equal(now) || samples[0].UsedPercent != 38 {
		t.Fatalf("changed: %+v %+v", st, samples)
	}
}

func TestCacheUntrusted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no owners or group bits on Windows")
	}
	body := usageFile(t, "windows.json")
	cases := []struct {
		name  string
		setup func(c *ClaudeSources, path string)
		why   string
	}{
		{"not ours", func(c *ClaudeSources, path string) { c.OwnedByMe = notMine }, "another user"},
		{"file group-writable", func(c *ClaudeSources, path string) { os.Chmod(path, 0o620) }, "writable by others"},
		{"file world-writable", func(c *ClaudeSources, path string) { os.Chmod(path, 0o602) }, "writable by others"},
		{"folder group-writable", func(c *ClaudeSources, path string) { os.Chmod(filepath.Dir(path), 0o770) }, "writable by others"},
		{"symlink", func(c *ClaudeSources, path string) {
			real := filepath.Join(c.Home, "elsewhere.json")
			os.Rename(path, real)
			os.Symlink(real, path)
		}, "cannot open"},
		{"folder is a symlink", func(c *ClaudeSources, path string) {
			dir := filepath.Dir(path)
			real := dir + "-real"
			os.Rename(dir, real)
			os.Symlink(real, dir)
		}, "symbolic link"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _, path := cacheEnv(t)
			writeCache(t, path, body, t0)
			tc.setup(c, path)
			samples, st := cacheState(t, c)
			if st.State != StateUntrusted || !strings.Contains(st.Detail, tc.why) || len(samples) != 0 {
				t.Fatalf("%+v %+v", st, samples)
			}
		})
	}
}

func TestCacheGarbage(t *testing.T) {
	for _, body := range [][]byte{
		[]byte("garbage"),
		{},
		[]byte(`{"no_windows_here":true}`),
		[]byte(`[1,2]`),
		usageFile(t, "error-429.json"),
		bytes.Repeat([]byte(" "), maxCache+10),
	} {
		c, _, path := cacheEnv(t)
		writeCache(t, path, body, t0)
		samples, st := cacheState(t, c)
		if st.State != StateError || len(samples) != 0 {
			t.Fatalf("%.40q: %+v %+v", body, st, samples)
		}
	}
	c, _, _ := cacheEnv(t)
	if _, st := cacheState(t, c); st.State != StateMissing {
		t.Fatalf("no file: %+v", st)
	}
}

func TestCacheNotWrittenIntoOthersFolder(t *testing.T) {
	e := newClaude(t, serveUsage(t, "windows.json"))
	os.Mkdir(e.c.CacheDir, 0o700)
	if runtime.GOOS != "windows" {
		os.Chmod(e.c.CacheDir, 0o777)
	} else {
		e.c.OwnedByMe = notMine
	}
	_, st := e.poll(true, NameOAuth)
	if st.State != StateOK || !strings.Contains(st.Detail, "not shared") {
		t.Fatalf("state = %+v", st)
	}
	if _, err := os.Stat(filepath.Join(e.c.CacheDir, cacheName)); err == nil {
		t.Fatal("wrote into a folder others can write")
	}
}

func TestClaudeJSON(t *testing.T) {
	c, clk, _ := cacheEnv(t)
	fetched := t0.Add(-5 * time.Minute).Truncate(time.Millisecond)
	var b strings.Builder
	b.WriteString(`{"numStartups":412,"projects":{`)
	for i := range 3000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/home/ann/src/p%d":{"allowedTools":[],"history":[{"display":"%s"}],"lastCost":0.1}`, i, strings.Repeat("x", 900))
	}
	fmt.Fprintf(&b, `},"cachedUsageUtilization":{"fetchedAtMs":%d,"accountUuid":"0d1e2f30-0000-4000-8000-000000000009","utilization":%s},"userID":"abc"}`,
		fetched.UnixMilli(), usageFile(t, "limits-only.json"))
	path := filepath.Join(c.Home, ".claude.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)

	samples, states := c.Poll(t.Context(), true)
	st := states[2]
	if st.Name != NameClaudeJSON || st.State != StateStale || !st.ObservedAt.Equal(fetched) {
		t.Fatalf("state = %+v", st)
	}
	if len(samples) != 2 || samples[0].Source != burn.SourceOAuthCache || !samples[0].ObservedAt.Equal(fetched) || samples[0].UsedPercent != 52 {
		t.Fatalf("samples = %+v", samples)
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Fatal("~/.claude.json was modified")
	}
	// Fresh when /usage was just opened.
	clk.Add(-4 * time.Minute)
	if _, states := c.Poll(t.Context(), true); states[2].State != StateOK {
		t.Fatalf("fresh: %+v", states[2])
	}

	os.WriteFile(path, []byte(`{"projects":{}}`), 0o600)
	if _, states := c.Poll(t.Context(), true); states[2].State != StateMissing {
		t.Fatalf("no key: %+v", states[2])
	}
	os.WriteFile(path, []byte(`{"cachedUsageUtilization":{"utilization":{"five_hour":{"utilization":3}}}}`), 0o600)
	if samples, states := c.Poll(t.Context(), true); states[2].State != StateError || len(samples) != 0 {
		t.Fatalf("no fetchedAtMs: %+v %+v", states[2], samples)
	}
}

// A future fetchedAtMs was "now" on every run, so the figure never aged: it
// is observed when first seen, by any process, and ages from there.
func TestClaudeJSONFutureFetchedAtAges(t *testing.T) {
	c, clk, _ := cacheEnv(t)
	fetched := t0.Add(3 * time.Hour).Truncate(time.Millisecond)
	body := fmt.Sprintf(`{"cachedUsageUtilization":{"fetchedAtMs":%d,"utilization":{"five_hour":{"utilization":42,"resets_at":%q}}}}`,
		fetched.UnixMilli(), t0.Add(4*time.Hour).Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(c.Home, ".claude.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	samples, states := c.Poll(t.Context(), true)
	if len(samples) != 1 || !samples[0].ObservedAt.Equal(t0) || states[2].State != StateOK {
		t.Fatalf("first seen: %+v %+v", samples, states[2])
	}
	clk.Add(10 * time.Minute)
	// Another process: only the state folder remembers.
	other := &ClaudeSources{Home: c.Home, CacheDir: c.CacheDir, StateDir: c.StateDir, Offline: true, Now: clk.Now}
	for _, src := range []*ClaudeSources{c, other} {
		samples, states = src.Poll(t.Context(), true)
		if len(samples) != 1 || !samples[0].ObservedAt.Equal(t0) || states[2].State != StateStale {
			t.Errorf("10 minutes later: %+v %+v, want it observed at %v and stale", samples, states[2], t0)
		}
	}
}

// Two config folders of two logins: both logins' windows come back, each
// under its fingerprint, not the newest file's alone.
func TestClaudeJSONOfTwoLogins(t *testing.T) {
	c, _, _ := cacheEnv(t)
	work, home := filepath.Join(c.Home, ".claude-work"), filepath.Join(c.Home, ".claude-home")
	c.ConfigDirs = []string{work, home}
	write := func(dir, uuid string, fetched time.Time, used int) {
		os.MkdirAll(dir, 0o700)
		body := fmt.Sprintf(`{"oauthAccount":{"accountUuid":%q,"emailAddress":"ann@example.com"},"cachedUsageUtilization":{"fetchedAtMs":%d,"utilization":{"five_hour":{"utilization":%d,"resets_at":%q}}}}`,
			uuid, fetched.UnixMilli(), used, t0.Add(2*time.Hour).Format(time.RFC3339))
		if err := os.WriteFile(filepath.Join(dir, ".claude.json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(work, "11111111-0000-4000-8000-000000000001", t0.Add(-2*time.Minute), 30)
	write(home, "22222222-0000-4000-8000-000000000002", t0.Add(-time.Minute), 80)
	samples, states := c.Poll(t.Context(), true)
	got := map[string]float64{}
	for _, s := range samples {
		got[s.Account] = s.UsedPercent
	}
	w, h := Account(work, c.Home), Account(home, c.Home)
	if w == "" || h == "" || w == h || got[w] != 30 || got[h] != 80 || len(samples) != 2 {
		t.Fatalf("samples %+v (logins %q %q), want 30 %% of work and 80 %% of home", samples, w, h)
	}
	if !states[2].ObservedAt.Equal(t0.Add(-time.Minute)) {
		t.Errorf("state %+v: observed at the newest file's fetch", states[2])
	}

	// The cached lookup reads a file again only when it changed.
	write(work, "33333333-0000-4000-8000-000000000003", t0.Add(-2*time.Minute), 5) // a size of its own: a coarse clock may keep the time
	if got := Account(work, c.Home); got == w || got == "" {
		t.Errorf("a new login in the same folder not seen: %q", got)
	}
}
