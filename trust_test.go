package runway

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/text"
)

// An endpoint that echoes the token in its body, its error type, its
// content type and a header: no 8 characters of the token reach any output
// (the line, the report, doctor) or any file in the state folder. The
// token was cut to a length before it was scrubbed, so doctor printed, and
// oauth-pacing.json kept, most of it.
func TestTrustTokenNeverShown(t *testing.T) {
	const token = "sk-ant-oat01-LEAKCHECK-0123456789abcdefABCDEF_-xyz0123456789abcdefABCDEF_-xyz0123456789abcdefABCDEF_-xyzQRSTU"
	modes := []struct {
		status int
		ct     string
		body   string
	}{
		{500, "application/", `{"error":{"type":"TOKEN","message":"TOKEN"}}`},
		{503, "application/json", `{"error":{"type":"overloaded TOKEN TOKEN"}}`},
		{200, "x/", `{"error":{"type":"x TOKEN"}}`},
		{200, "text/html;q=", `<html>TOKEN</html>`},
		{401, "application/json", `{"error":{"type":"TOKEN"}}`},
	}
	for i, m := range modes {
		t.Run(fmt.Sprint(m.status, " ", m.ct), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				rw.Header().Set("Content-Type", m.ct+tok)
				rw.Header().Set("X-Echo", tok)
				rw.WriteHeader(m.status)
				io.WriteString(rw, strings.ReplaceAll(m.body, "TOKEN", tok))
			}))
			defer srv.Close()
			w := newWorld(t)
			now := w.start.Add(time.Duration(10+i) * time.Minute)
			env := w.loggedInTo(srv.URL, token, now)
			w.claudeTurn(now.Add(-time.Second))
			clock := func() time.Time { return now }
			ev := env.Evaluate(t.Context(), EvalOptions{Now: clock, Live: true, LiveTimeout: 5 * time.Second})
			outputs := []string{text.Line(ev.Snapshot, time.UTC), text.Report(ev.Snapshot, time.UTC),
				fmt.Sprintf("%+v", ev.Sources), strings.Join(ev.Snapshot.Warnings, "\n"),
				doctorText(env, clock)}
			files, _ := filepath.Glob(filepath.Join(env.StateDir, "*"))
			cache, _ := filepath.Glob(filepath.Join(env.ClaudeCacheDir, "*"))
			for _, f := range append(files, cache...) {
				b, _ := os.ReadFile(f)
				outputs = append(outputs, f+": "+string(b))
			}
			for _, out := range outputs {
				if piece := tokenPiece(out, token); piece != "" {
					t.Errorf("%q of the token shown in:\n%s", piece, out)
				}
			}
			if !strings.Contains(strings.Join(outputs, "\n"), "claude-oauth") {
				t.Error("the endpoint was not reported at all")
			}
		})
	}
}

// tokenPiece is the first 8-character piece of token in text, any case.
func tokenPiece(text, token string) string {
	text, lower := strings.ToLower(text), strings.ToLower(token)
	for i := 0; i+8 <= len(lower); i++ {
		if strings.Contains(text, lower[i:i+8]) {
			return token[i : i+8]
		}
	}
	return ""
}

// `runway now` reuses the tray's snapshot only when it was made for the
// same roots and settings: one under 10 s old was printed whatever
// CLAUDE_CONFIG_DIR, CODEX_HOME or the config said.
func TestTrustSnapshotMadeForOtherSettings(t *testing.T) {
	w := newWorld(t)
	env := w.env()
	now := w.start.Add(time.Hour)
	if err := env.writeSnapshot(SnapshotName, burn.Snapshot{At: now}); err != nil {
		t.Fatal(err)
	}
	if _, ok := env.LatestSnapshot(now); !ok {
		t.Fatal("the same settings: the snapshot was not reused")
	}
	other := map[string]func(e *Env){
		"CLAUDE_CONFIG_DIR": func(e *Env) { e.Roots.Claude = []string{filepath.Join(w.dir, "elsewhere")} },
		"CODEX_HOME":        func(e *Env) { e.Roots.Codex = nil },
		"low_percent":       func(e *Env) { e.Config.Thresholds.LowPercent = 25 },
		"cache_read_weight": func(e *Env) { e.Config.CacheReadWeight = 0.5 },
		"lookback":          func(e *Env) { e.Config.Lookback = Duration(12 * time.Hour) },
	}
	for name, change := range other {
		e := env
		e.Roots.Claude = slices.Clone(env.Roots.Claude)
		change(&e)
		if _, ok := e.LatestSnapshot(now); ok {
			t.Errorf("another %s: the tray's snapshot was reused", name)
		}
	}
}

// The template's span keeps a sign and never overflows: 1e300 minutes read
// "-9223372036s" and -25 read "25m".
func TestTrustSpanTemplate(t *testing.T) {
	for in, want := range map[string]string{
		"25": "25m", "-25": "-25m", "65": "1h05m", "1e300": "106751d23h", "-1e300": "-106751d23h", "0": "0s",
	} {
		tmpl, err := text.Template("{{span "+in+"}}", time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, burn.Snapshot{}); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("span %s = %q, want %q", in, b.String(), want)
		}
	}
	if got := text.Span(-1 << 63); strings.HasPrefix(got, "-") {
		t.Errorf("text.Span(min) = %q", got)
	}
}

// A provider whose only account source failed, beside one that answers:
// the gate cannot tell ("no data where a source failed"), it does not say
// "on track" from the other provider alone. runway now also says the
// source's own warning, as the tray does (TestFaultUsageEndpoint): Evaluate
// once left it out; one assembly, Env.snapshot, now serves both.
func TestTrustFailedSourceClosesTheGate(t *testing.T) {
	w := newWorld(t)
	now := w.start.Add(10 * time.Minute)
	srv := newUsageServer(t, `{}`)
	srv.set("500")
	env := w.loggedInTo(srv.URL, "sk-ant-oat01-FAKEFAKEFAKE", now)
	w.claudeTurn(now.Add(-time.Second))
	w.codexTurn(now.Add(-time.Minute), 20)
	ev := env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }, Live: true, LiveTimeout: 5 * time.Second})
	if v, why := burn.Gate(ev.Snapshot); v != burn.CannotTell || !strings.Contains(why, "claude-oauth") {
		t.Errorf("gate %d (%s), want 3 naming claude-oauth; line %q", v, why, text.Line(ev.Snapshot, time.UTC))
	}
	if findWarning(ev.Snapshot.Warnings, "claude-oauth: backoff", "HTTP 500") == "" {
		t.Errorf("runway now's warnings %q lack the endpoint's HTTP 500", ev.Snapshot.Warnings)
	}
	// Offline, nothing failed, but the Max login's session burns with no
	// percent: still 3, saying to set up the statusline (unwatchedPlans).
	env.Config.Offline = true
	ev = env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }})
	if v, why := burn.Gate(ev.Snapshot); v != burn.CannotTell || !strings.Contains(why, "runway setup") {
		t.Errorf("offline: gate %d (%s), want 3 naming runway setup", v, why)
	}
}

// The 5-hour samples all date from before the window's reset (6 h or 2
// days old) and a Claude session burns now: nothing says how much of the
// new window it has used, so the gate cannot tell and the line says so
// (it printed "claude 5h reset at …, no sample since" and --check exited
// 0, the old weekly figure counting as known).
func TestTrustNoFigureSinceTheResetWhileBurning(t *testing.T) {
	for _, age := range []time.Duration{6 * time.Hour, 48 * time.Hour} {
		w := newWorld(t)
		now := w.start.Add(3 * time.Hour)
		log, err := quota.OpenLog(w.stateDir)
		if err != nil {
			t.Fatal(err)
		}
		at := now.Add(-age)
		for i := range 4 {
			when := at.Add(time.Duration(i-3) * 5 * time.Minute)
			if err := log.Append(
				burn.Sample{ObservedAt: when, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300,
					UsedPercent: 50 + float64(i), ResetsAt: at.Add(time.Hour), Source: burn.SourceStatusline},
				burn.Sample{ObservedAt: when, Provider: burn.Claude, Window: burn.Weekly, WindowMinutes: 7 * 24 * 60,
					UsedPercent: 20, ResetsAt: now.Add(4 * 24 * time.Hour), Source: burn.SourceStatusline}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 10 {
			w.claudeTurn(now.Add(time.Duration(i-9) * 20 * time.Second))
		}
		s := w.env().Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
		line := text.Line(s, time.UTC)
		if v, why := burn.Gate(s); v != burn.CannotTell || !strings.Contains(why, "no sample since its reset") {
			t.Errorf("samples %s old, a session burning: gate %d (%s), want 3; line %q", age, v, why, line)
		}
		t.Logf("%s: line %q", age, line)
		if !strings.Contains(line, "no sample since, sessions burn ?") {
			t.Errorf("samples %s old: line %q, want it to say the sessions burn blind", age, line)
		}
	}
}

// A remote copy of a local session whose id carries an invisible character
// (U+200B, U+FEFF, U+2060) is the local session's copy, counted once: it
// showed as a second row that read exactly as the local one.
func TestTrustInvisibleRemoteSessionID(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	for _, id := range []string{"both\u200b", "\ufeffboth", "bo\u2060th"} {
		env := pressedEnv(t, now)
		writeBoth(t, env, now)
		saveRemote(t, env, now, remoteExport(id, "laptop", now, 6))
		s := env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
		if len(s.Sessions) != 1 || s.Sessions[0].Host != "" {
			t.Errorf("remote copy %q of the local session: %d rows\n%s", id, len(s.Sessions), text.Report(s, time.UTC))
		}
	}
}

// The index never changes a figure: a transcript rewritten in place (the
// same inode, as long, its end as it was, its modification time put back)
// gives the session the tokens per second a fresh state folder gives (the
// index kept the old responses).
func TestTrustIndexAfterARewriteInPlace(t *testing.T) {
	w := newWorld(t)
	now := w.start.Add(time.Hour)
	for i := range 12 {
		w.claudeTurn(now.Add(time.Duration(i-11) * 20 * time.Second))
	}
	env := w.env()
	at := func() time.Time { return now }
	rate := func(e Env) float64 {
		s := e.Evaluate(t.Context(), EvalOptions{Now: at}).Snapshot
		if len(s.Sessions) != 1 {
			t.Fatalf("%d sessions", len(s.Sessions))
		}
		return s.Sessions[0].TokensPerS
	}
	before := rate(env) // leaves the index
	info, err := os.Stat(w.claudePath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.claudePath)
	if err != nil {
		t.Fatal(err)
	}
	// Saved whole: every response but the last two with a ninth of its output.
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i := range len(lines) - 4 {
		lines[i] = bytes.ReplaceAll(lines[i], []byte(`"output_tokens":900`), []byte(`"output_tokens":100`))
	}
	h, err := os.OpenFile(w.claudePath, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	h.Write(bytes.Join(lines, nil))
	h.Close()
	os.Chtimes(w.claudePath, info.ModTime(), info.ModTime())

	indexed := rate(env)
	fresh := env
	fresh.StateDir = t.TempDir()
	cold := rate(fresh)
	t.Logf("before the rewrite %.0f tok/s; after it, with the index %.0f, from a fresh state folder %.0f", before, indexed, cold)
	if indexed != cold {
		t.Errorf("with the index %.1f tok/s, from a fresh state folder %.1f", indexed, cold)
	}
}
