package otlp

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/agentrunway/runway/burn"
)

const weight = burn.DefaultCacheReadWeight

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// asProto re-encodes a JSON export request as protobuf, as an exporter
// with protocol http/protobuf sends it.
func asProto(t testing.TB, sig Signal, js []byte) []byte {
	t.Helper()
	var b []byte
	var err error
	switch sig {
	case Logs:
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalJSON(js); err != nil {
			t.Fatal(err)
		}
		b, err = req.MarshalProto()
	case Metrics:
		req := pmetricotlp.NewExportRequest()
		if err := req.UnmarshalJSON(js); err != nil {
			t.Fatal(err)
		}
		b, err = req.MarshalProto()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestClaudeAPIRequestEvents(t *testing.T) {
	js := fixture(t, "claude_logs.json")
	for _, enc := range []Encoding{JSON, Protobuf} {
		body := js
		if enc == Protobuf {
			body = asProto(t, Logs, js)
		}
		b, err := Decode(Logs, enc, body, "10.0.0.7", weight)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if b.Rejected != 0 || len(b.Events) != 2 {
			t.Fatalf("%s: %d events, %d rejected (%s); want 2 events (user_prompt is not usage)", enc, len(b.Events), b.Rejected, b.Reason)
		}
		ev := b.Events[0]
		want := burn.Event{
			Provider:  burn.Claude,
			Session:   "6f1c2b9e-0d1a-4c55-9a43-7be0b1b2c001",
			Model:     "claude-sonnet-4-5",
			Host:      "devbox",
			At:        t0.Add(12 * time.Second),
			TurnStart: t0.Add(3 * time.Second),
			Key:       keyLog + "6f1c2b9e-0d1a-4c55-9a43-7be0b1b2c001/req_011CV1",
			Tokens:    burn.Tokens{Input: 12, Output: 800, CacheRead: 20000, CacheCreation: 1500},
			Weighted:  12 + 800 + 1500 + 0.1*20000,
			Final:     true,
		}
		if ev != want {
			t.Errorf("%s:\n got %+v\nwant %+v", enc, ev, want)
		}
		if b.Events[1].Tokens.Output != 1200 || b.Events[1].Host != "devbox" {
			t.Errorf("%s: second request %+v", enc, b.Events[1])
		}
		if len(b.Prompts) != 1 || b.Prompts[0] != (Prompt{Provider: burn.Claude, Session: want.Session, At: t0}) {
			t.Errorf("%s: prompts %+v, want the user_prompt", enc, b.Prompts)
		}
	}
}

func TestCodexResponseCompleted(t *testing.T) {
	b, err := Decode(Logs, JSON, fixture(t, "codex_logs.json"), "127.0.0.1", weight)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Events) != 1 || b.Rejected != 0 {
		t.Fatalf("%d events, %d rejected: want one per response (the copy without counts is skipped)", len(b.Events), b.Rejected)
	}
	ev := b.Events[0]
	// Input counts the cached tokens in Codex's numbers: split as the
	// rollout reader does; string-typed counts read as numbers.
	if ev.Tokens != (burn.Tokens{Input: 2000, CacheRead: 7000, Output: 650}) {
		t.Errorf("tokens %+v", ev.Tokens)
	}
	if len(b.Prompts) != 1 || b.Prompts[0] != (Prompt{Provider: burn.Codex, Session: ev.Session, At: t0.Add(time.Minute)}) {
		t.Errorf("prompts %+v, want the codex.user_prompt", b.Prompts)
	}
	if ev.Provider != burn.Codex || ev.Session != "019a8b2e-5c3d-7e10-9f00-aa00bb11cc22" || ev.Host != "buildbox" ||
		ev.Model != "gpt-5.1-codex" || !ev.At.Equal(t0.Add(65*time.Second+121*time.Millisecond)) {
		t.Errorf("event %+v", ev)
	}
	if ev.Weighted != 2000+650+700 {
		t.Errorf("weighted %v, want the tailers' weighting 3350", ev.Weighted)
	}
}

func TestHostFallsBackToSender(t *testing.T) {
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	claudeAttrs(lr.Attributes(), "s1", "r1", t0, 10, 20)
	b := MapLogs(ld, "192.0.2.5", weight)
	if len(b.Events) != 1 || b.Events[0].Host != "192.0.2.5" {
		t.Fatalf("%+v: want the sender as host without host.name", b.Events)
	}
}

func TestBadCountsAreRejectedWithAReason(t *testing.T) {
	for _, v := range []string{"lots", "-5", "NaN", "1e12"} {
		ld := plog.NewLogs()
		lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		a := lr.Attributes()
		a.PutStr("event.name", "codex.sse_event")
		a.PutStr("event.kind", "response.completed")
		a.PutStr("event.timestamp", "2026-11-20T12:00:00Z")
		a.PutStr("conversation.id", "c1")
		a.PutStr("input_token_count", v)
		a.PutStr("output_token_count", "5")
		b := MapLogs(ld, "h", weight)
		if len(b.Events) != 0 || b.Rejected != 1 || !strings.Contains(b.Reason, "not a number") {
			t.Errorf("%q: %+v", v, b)
		}
	}
}

func TestMissingSessionIsRejected(t *testing.T) {
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	claudeAttrs(lr.Attributes(), "", "r1", t0, 10, 20)
	b := MapLogs(ld, "h", weight)
	if b.Rejected != 1 || !strings.Contains(b.Reason, "OTEL_METRICS_INCLUDE_SESSION_ID") {
		t.Errorf("%+v", b)
	}
}

func TestClaudeTokenUsageMetrics(t *testing.T) {
	js := fixture(t, "claude_metrics.json")
	for _, enc := range []Encoding{JSON, Protobuf} {
		body := js
		if enc == Protobuf {
			body = asProto(t, Metrics, js)
		}
		b, err := Decode(Metrics, enc, body, "h", weight)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Points) != 4 {
			t.Fatalf("%s: %d points, want the 4 token types (cost is not usage)", enc, len(b.Points))
		}
		s := NewStore(6*time.Hour, weight)
		if a := s.Add(t0.Add(time.Minute), b); a.Events != 4 {
			t.Fatalf("%s: %+v", enc, a)
		}
		var sum burn.Tokens
		for _, ev := range s.Events() {
			sum.Input += ev.Tokens.Input
			sum.Output += ev.Tokens.Output
			sum.CacheRead += ev.Tokens.CacheRead
			sum.CacheCreation += ev.Tokens.CacheCreation
			if ev.Host != "devbox" || ev.Model != "claude-opus-4-5" || !ev.TurnStart.Equal(t0) {
				t.Errorf("%s: %+v", enc, ev)
			}
		}
		if sum != (burn.Tokens{Input: 12, Output: 800, CacheRead: 20000, CacheCreation: 1500}) {
			t.Errorf("%s: tokens %+v", enc, sum)
		}
	}
}

// cumulativePoint is a token.usage metrics body with one cumulative point.
func tokenPoint(session string, typ string, value float64, start, at time.Time, temporality pmetric.AggregationTemporality) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("host.name", "devbox")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("claude_code.token.usage")
	sum := m.SetEmptySum()
	sum.SetAggregationTemporality(temporality)
	sum.SetIsMonotonic(true)
	dp := sum.DataPoints().AppendEmpty()
	dp.Attributes().PutStr("session.id", session)
	dp.Attributes().PutStr("type", typ)
	dp.Attributes().PutStr("model", "claude-opus-4-5")
	dp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
	dp.SetTimestamp(pcommon.NewTimestampFromTime(at))
	dp.SetDoubleValue(value)
	return md
}

func TestCumulativeSumsCountWhatEachPointAdds(t *testing.T) {
	s := NewStore(6*time.Hour, weight)
	cum := pmetric.AggregationTemporalityCumulative
	add := func(v float64, start, at time.Time) Added {
		return s.Add(at, MapMetrics(tokenPoint("s1", "output", v, start, at, cum), "h"))
	}
	add(100, t0, t0.Add(time.Minute))
	add(250, t0, t0.Add(2*time.Minute))
	add(250, t0, t0.Add(2*time.Minute))                   // a retry
	add(180, t0, t0.Add(90*time.Second))                  // an older batch, late
	add(30, t0.Add(5*time.Minute), t0.Add(6*time.Minute)) // the process restarted
	total := int64(0)
	for _, ev := range s.Events() {
		total += ev.Tokens.Output
	}
	if total != 280 || s.Len() != 3 {
		t.Errorf("%d tokens in %d events, want 100 + 150 + 30 in 3", total, s.Len())
	}
}

// Usage dated further ahead than the clocks' skew is outside the
// lookback: kept, it would never leave, and a cumulative point from the
// future would make every later one read as an old one delivered late.
func TestUsageFromTheFutureIsRefused(t *testing.T) {
	s := NewStore(6*time.Hour, weight)
	cum := pmetric.AggregationTemporalityCumulative
	far := t0.Add(30 * 24 * time.Hour)
	ld := plog.NewLogs()
	claudeAttrs(ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes(), "s0", "r1", far, 10, 100)
	if a := s.Add(t0, MapLogs(ld, "h", weight)); a.Stale != 1 || a.Events != 0 {
		t.Errorf("a response from the future: %+v", a)
	}
	if a := s.Add(t0, MapMetrics(tokenPoint("s1", "output", 1000, t0, far, cum), "h")); a.Stale != 1 {
		t.Errorf("a point from the future: %+v", a)
	}
	if a := s.Add(t0.Add(time.Minute), MapMetrics(tokenPoint("s1", "output", 100, t0, t0.Add(time.Minute), cum), "h")); a.Events != 1 {
		t.Errorf("the series' next point after one from the future: %+v, want it counted", a)
	}
	s.Prune(t0.Add(7 * time.Hour))
	if s.Len() != 0 || s.cumulative.len() != 0 {
		t.Errorf("%d events and %d series outlive the lookback", s.Len(), s.cumulative.len())
	}
}

func TestLogEventsWinOverMetricsForASession(t *testing.T) {
	s := NewStore(6*time.Hour, weight)
	delta := pmetric.AggregationTemporalityDelta
	s.Add(t0, MapMetrics(tokenPoint("s1", "output", 500, t0.Add(-time.Minute), t0, delta), "h"))
	if s.Len() != 1 {
		t.Fatal("metric point not kept")
	}
	ld := plog.NewLogs()
	claudeAttrs(ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes(), "s1", "r1", t0, 10, 500)
	s.Add(t0, MapLogs(ld, "h", weight))
	a := s.Add(t0.Add(time.Minute), MapMetrics(tokenPoint("s1", "output", 700, t0, t0.Add(time.Minute), delta), "h"))
	evs := s.Events()
	if len(evs) != 1 || !strings.HasPrefix(evs[0].Key, keyLog) || a.Ignored != 1 {
		t.Errorf("events %+v, added %+v: want the log event only, never both", evs, a)
	}
}

// TestPromptEndsTheTurnBeforeIt: the response before a user's prompt is
// the end of its session's turn (the burst restarts after a long gap
// there: burn.Config.BurstGapAfterTurn), whatever order the exports
// arrive in (every response kept, given out in time order), for each
// session on its own; a retried prompt is one.
func TestPromptEndsTheTurnBeforeIt(t *testing.T) {
	ev := func(p burn.Provider, session string, at time.Duration) burn.Event {
		return burn.Event{Provider: p, Session: session, At: t0.Add(at), Key: keyLog + session + at.String(), Tokens: burn.Tokens{Output: 10}, Final: true}
	}
	pr := func(p burn.Provider, session string, at time.Duration) Prompt {
		return Prompt{Provider: p, Session: session, At: t0.Add(at)}
	}
	events := []burn.Event{
		ev(burn.Claude, "a", 0), ev(burn.Claude, "a", 10*time.Second), // the user away 8 min
		ev(burn.Claude, "a", 8*time.Minute+5*time.Second), ev(burn.Claude, "a", 8*time.Minute+15*time.Second),
		ev(burn.Codex, "a", 20*time.Second), // another provider's session of the same id
		ev(burn.Codex, "b", 5*time.Second), ev(burn.Codex, "b", 9*time.Minute),
	}
	prompts := []Prompt{
		pr(burn.Claude, "a", -time.Second),                 // before every response: ends nothing
		pr(burn.Claude, "a", 8*time.Minute),                // ends a's response at 10 s
		pr(burn.Codex, "b", 9*time.Minute),                 // at the very time of b's response: ends the one before
		pr(burn.Claude, "gone", 8*time.Minute),             // a session with no response held
		pr(burn.Claude, "a", 8*time.Minute+20*time.Second), // after the last: ends it
	}
	want := map[string]bool{"claude/a/10s": true, "codex/b/5s": true, "claude/a/8m15s": true}
	promptsFirst := NewStore(6*time.Hour, weight)
	promptsFirst.Add(t0.Add(10*time.Minute), Batch{Prompts: prompts})
	promptsFirst.Add(t0.Add(10*time.Minute), Batch{Prompts: prompts}) // retried
	for _, e := range slices.Backward(events) {
		promptsFirst.Add(t0.Add(10*time.Minute), Batch{Events: []burn.Event{e}})
	}
	checkEndsOfTurns(t, "prompts first", promptsFirst, want)
	eventsFirst := NewStore(6*time.Hour, weight)
	eventsFirst.Add(t0.Add(10*time.Minute), Batch{Events: events})
	for _, p := range prompts {
		eventsFirst.Add(t0.Add(10*time.Minute), Batch{Prompts: []Prompt{p}})
	}
	checkEndsOfTurns(t, "events first", eventsFirst, want)
	// What the store holds stays unmarked: a copy read back from the
	// file, or given out again, is marked afresh.
	for _, e := range eventsFirst.events.m {
		if e.EndsTurn {
			t.Errorf("held event %+v is marked", e)
		}
	}
	back := checkTurnsReadBack(t, eventsFirst, want)
	// A prompt dated past the clocks' skew would never leave: not held.
	if a := back.Add(t0.Add(10*time.Minute), Batch{Prompts: []Prompt{pr(burn.Claude, "a", 10*time.Minute+clockSkew+time.Second)}}); a.Prompts != 0 {
		t.Errorf("a prompt from the future is held: %+v", a)
	}
	// Prompts leave with the lookback.
	back.Prune(t0.Add(6*time.Hour + 8*time.Minute + 30*time.Second))
	if back.prompts.len() != 1 {
		t.Errorf("%d prompts held after the lookback, want the last one", back.prompts.len())
	}
}

// checkEndsOfTurns checks that s holds the 7 events in time order, and
// which of them end their turn.
func checkEndsOfTurns(t *testing.T, name string, s *Store, want map[string]bool) {
	t.Helper()
	got := map[string]bool{}
	evs := s.Events()
	if len(evs) != 7 || !slices.IsSortedFunc(evs, func(a, b burn.Event) int { return a.At.Compare(b.At) }) {
		t.Errorf("%s: %d events, want 7 in time order", name, len(evs))
	}
	for _, e := range evs {
		if e.EndsTurn {
			got[string(e.Provider)+"/"+e.Session+"/"+e.At.Sub(t0).String()] = true
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("%s: ends of turns %v, want %v", name, got, want)
	}
}

// checkTurnsReadBack saves s and checks that the ends of turns read back
// the same, loaded into a store (returned) and through ReadEvents.
func checkTurnsReadBack(t *testing.T, s *Store, want map[string]bool) *Store {
	t.Helper()
	dir := t.TempDir()
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	back := NewStore(6*time.Hour, weight)
	if err := back.Load(dir, t0.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	checkEndsOfTurns(t, "loaded", back, want)
	read, err := ReadEvents(dir, weight, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range read {
		if e.EndsTurn {
			n++
		}
	}
	if n != len(want) {
		t.Errorf("ReadEvents marks %d ends of turns, want %d", n, len(want))
	}
	return back
}

// TestStoreSavesNoPromptText: the saved file holds usage, never what the
// user typed nor who they are (TestStoreFileRoundTrip reads it back).
func TestStoreSavesNoPromptText(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(6*time.Hour, weight)
	for _, f := range []string{"claude_logs.json", "codex_logs.json"} {
		b, err := Decode(Logs, JSON, fixture(t, f), "h", weight)
		if err != nil {
			t.Fatal(err)
		}
		s.Add(t0.Add(2*time.Minute), b)
	}
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, StoreName))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"SECRET PROMPT", "REDACTED", "someone@example.com", "3f2a"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the state file holds %q", secret)
		}
	}
}

// Tried as a new user would: RUNWAY_STATE_DIR naming a file gave the state
// folder's warning and also "remote sessions: open …/remote.json: not a
// directory". The state folder's warning is the one that says what to do.
// A missing file is no remote session either.
func TestStateFolderIsAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state")
	os.WriteFile(file, []byte("x"), 0o600)
	for _, dir := range []string{file, t.TempDir()} {
		if evs, err := ReadEvents(dir, weight, time.Time{}); err != nil || evs != nil {
			t.Errorf("%s: %v %v", dir, evs, err)
		}
	}
}

func TestThousandSessions(t *testing.T) {
	s := NewStore(6*time.Hour, weight)
	ld := manySessions(1000, 3, t0)
	a := s.Add(t0.Add(time.Minute), MapLogs(ld, "h", weight))
	sessions := map[string]bool{}
	for _, ev := range s.Events() {
		sessions[ev.Session] = true
	}
	if a.Events != 3000 || len(sessions) != 1000 {
		t.Errorf("added %+v over %d sessions", a, len(sessions))
	}
}

func TestControlCharactersAndLongIdsAreCleaned(t *testing.T) {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("host.name", "evil\x1b[31mhost")
	claudeAttrs(rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes(), strings.Repeat("x", 5000), "r", t0, 1, 1)
	b := MapLogs(ld, "h", weight)
	if len(b.Events) != 1 {
		t.Fatal(b)
	}
	if ev := b.Events[0]; ev.Host != "evil[31mhost" || len(ev.Session) != maxText {
		t.Errorf("host %q, session of %d bytes", ev.Host, len(ev.Session))
	}
}

// claudeAttrs fills a record's attributes as Claude Code's api_request.
func claudeAttrs(a pcommon.Map, session, request string, at time.Time, input, output int64) {
	a.PutStr("event.name", "api_request")
	if session != "" {
		a.PutStr("session.id", session)
	}
	a.PutStr("event.timestamp", at.Format(time.RFC3339Nano))
	a.PutInt("event.sequence", 1)
	a.PutStr("model", "claude-sonnet-4-5")
	a.PutInt("input_tokens", input)
	a.PutInt("output_tokens", output)
	a.PutInt("cache_read_tokens", 1000)
	a.PutInt("cache_creation_tokens", 0)
	a.PutStr("request_id", request)
}

// manySessions is one export with perSession api_requests for each of n
// sessions on n/10 hosts.
func manySessions(n, perSession int, at time.Time) plog.Logs {
	ld := plog.NewLogs()
	for h := 0; h < max(n/10, 1); h++ {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("host.name", "box-"+itoa(h))
		lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
		for i := h * 10; i < min(h*10+10, n); i++ {
			for j := 0; j < perSession; j++ {
				claudeAttrs(lrs.AppendEmpty().Attributes(), "session-"+itoa(i), "req-"+itoa(j), at.Add(time.Duration(j)*10*time.Second), 10, 300)
			}
		}
	}
	return ld
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestAbsurdDeltaPointIsRejected: a delta point of 1e10 tokens is damage,
// not usage that takes the whole share (the log events' bound applies).
func TestAbsurdDeltaPointIsRejected(t *testing.T) {
	delta := pmetric.AggregationTemporalityDelta
	b := MapMetrics(tokenPoint("s1", "output", 1e10, t0, t0.Add(time.Minute), delta), "h")
	if len(b.Points) != 0 || b.Rejected == 0 {
		t.Errorf("a delta point of 1e10 tokens was kept: %+v", b)
	}
	b = MapMetrics(tokenPoint("s1", "cacheRead", 5e8, t0, t0.Add(time.Minute), pmetric.AggregationTemporalityCumulative), "h")
	if len(b.Points) != 1 {
		t.Errorf("a long session's cumulative sum of 5e8 was rejected: %+v", b)
	}
}

// TestCumulativeSeriesOlderThanTheLookbackIsABase: the first point of a
// session that has run since before the lookback (the receiver started
// late) counts nothing; what the next point adds counts.
func TestCumulativeSeriesOlderThanTheLookbackIsABase(t *testing.T) {
	s := NewStore(6*time.Hour, weight)
	cum := pmetric.AggregationTemporalityCumulative
	began := t0.Add(-8 * time.Hour)
	s.Add(t0, MapMetrics(tokenPoint("s1", "cacheRead", 3e7, began, t0, cum), "h"))
	s.Add(t0.Add(time.Minute), MapMetrics(tokenPoint("s1", "cacheRead", 3e7+5000, began, t0.Add(time.Minute), cum), "h"))
	total := int64(0)
	for _, ev := range s.Events() {
		total += ev.Tokens.CacheRead
	}
	if total != 5000 {
		t.Errorf("%d tokens, want the 5000 the second point added (not the 3e7 of 8 hours at one instant)", total)
	}
}
