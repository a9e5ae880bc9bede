package tail

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

func TestClaudeStreamedDuplicates(t *testing.T) {
	u := readClaude(t, "streamed-duplicates.jsonl")
	const sonnet = "claude-sonnet-4-5-20250929"
	checkEvents(t, u.Events, []burn.Event{
		// Placeholders (output 1) are replaced by the final line, never added.
		claudeEvent("msg_01A/req_01A", sid, "", sonnet, "2026-11-20T10:15:44.900Z", "2026-11-20T10:15:30Z",
			burn.Tokens{Input: 3, Output: 312, CacheCreation: 1834, CacheRead: 40211}, true),
		// Identical copies count once.
		endsTurn(claudeEvent("msg_01B/req_01B", sid, "", sonnet, "2026-11-20T10:15:52Z", "2026-11-20T10:15:47Z",
			burn.Tokens{Input: 5, Output: 87, CacheCreation: 200, CacheRead: 42045}, true)),
	})
	if w := u.Events[0].Weighted; w != 3+312+1834+0.1*40211 {
		t.Errorf("weighted = %v", w)
	}
	checkActivity(t, u.Activity, burn.Activity{Provider: burn.Claude, Session: sid, At: at("2026-11-20T10:15:52.100Z"), TurnEnded: true}) // the turn_duration line ends the turn
	if len(u.Samples) != 0 || len(u.Warnings) != 0 {
		t.Errorf("samples %v warnings %v", u.Samples, u.Warnings)
	}
}

func TestClaudeNoRequestID(t *testing.T) {
	u := readClaude(t, "no-request-id.jsonl")
	const sonnet = "claude-sonnet-4-5-20250929"
	checkEvents(t, u.Events, []burn.Event{
		endsTurn(claudeEvent("msg_02A", sid, "", sonnet, "2026-11-20T11:00:05Z", "2026-11-20T11:00:00Z",
			burn.Tokens{Input: 2, Output: 140, CacheRead: 9000}, true)),
		endsTurn(claudeEvent("msg_02B", sid, "", sonnet, "2026-11-20T11:01:04Z", "2026-11-20T11:01:00Z",
			burn.Tokens{Input: 4, Output: 66, CacheCreation: 120, CacheRead: 9000}, true)),
	})
	checkActivity(t, u.Activity, burn.Activity{Provider: burn.Claude, Session: sid, At: at("2026-11-20T11:01:04Z"), TurnEnded: true})
}

func TestClaudeSynthetic(t *testing.T) {
	u := readClaude(t, "synthetic.jsonl")
	checkEvents(t, u.Events, []burn.Event{
		endsTurn(claudeEvent("msg_03A/req_03A", sid, "", "claude-sonnet-4-5-20250929", "2026-11-20T12:00:01Z", "2026-11-20T12:00:00Z",
			burn.Tokens{Input: 1, Output: 10}, true)),
	})
}

func TestClaudeLimitHit(t *testing.T) {
	u := readClaude(t, "limit-hit.jsonl")
	checkEvents(t, u.Events, nil)
	checkSamples(t, u.Samples, []burn.Sample{
		sample(burn.Claude, burn.SourceLimitHit, "2026-11-20T13:00:00Z", burn.FiveHour, 300, 100, time.Unix(1795705200, 0)),
		sample(burn.Claude, burn.SourceLimitHit, "2026-11-20T13:05:00Z", burn.Weekly, 10080, 100, time.Unix(1796000000, 0)),
		// status "allowed_warning" is not a limit hit.
	})
}

func TestClaudeSidechainReplay(t *testing.T) {
	u := coldRead(t, Roots{Claude: []string{filepath.Join("testdata", "claude", "sidechain-replay")}})
	checkEvents(t, u.Events, []burn.Event{
		claudeEvent("msg_04A/req_04A", sid, "", "claude-sonnet-4-5-20250929", "2026-11-20T14:00:06Z", "2026-11-20T14:00:00Z",
			burn.Tokens{Input: 6, Output: 95, CacheCreation: 500, CacheRead: 30000}, true),
		// The subagent's replay of msg_04A (new request id) is dropped;
		// its own message folds into the parent session.
		endsTurn(claudeEvent("msg_04B/req_04B", sid, "a1b2c3d", "claude-haiku-4-5-20251001", "2026-11-20T14:01:30Z", "2026-11-20T14:00:07.5Z",
			burn.Tokens{Input: 8, Output: 420, CacheCreation: 2000}, true)),
		endsTurn(claudeEvent("msg_04C/req_04C", sid, "", "claude-sonnet-4-5-20250929", "2026-11-20T14:02:04Z", "2026-11-20T14:02:00Z",
			burn.Tokens{Input: 3, Output: 40, CacheCreation: 100, CacheRead: 31000}, true)),
	})
	checkActivity(t, u.Activity, burn.Activity{Provider: burn.Claude, Session: sid, At: at("2026-11-20T14:02:04Z"), TurnEnded: true})
}

// TestCodexShapes reads each shape of rollout found on disk (long: a table,
// a case a file).
func TestCodexShapes(t *testing.T) {
	const T = "01a22fc0-0000-7000-8000-00000000000"
	for _, tc := range []struct {
		name    string
		events  []burn.Event
		samples []burn.Sample
	}{
		{
			name: "weekly-only.jsonl",
			events: []burn.Event{endsTurn(codexEvent(T+"1@1560", T+"1", "", "gpt-5.1-codex", "2026-12-01T05:00:02Z", "2026-12-01T05:00:00.010Z",
				burn.Tokens{Input: 1500, Output: 60}))},
			// A plan without a 5-hour window puts the weekly one in primary.
			samples: []burn.Sample{codexSample("2026-12-01T05:00:02Z", burn.Weekly, 10080, 41.25, time.Unix(1796528998, 0))},
		},
		{
			name: "other-limit-id.jsonl",
			events: []burn.Event{
				codexEvent(T+"2@2100", T+"2", "", "gpt-5.3-codex-spark", "2026-12-01T05:10:03Z", "2026-12-01T05:10:00.010Z",
					burn.Tokens{Input: 1500, CacheRead: 500, Output: 100}),
				endsTurn(codexEvent(T+"2@4380", T+"2", "", "gpt-5.3-codex-spark", "2026-12-01T05:10:09Z", "2026-12-01T05:10:03Z",
					burn.Tokens{Input: 1200, CacheRead: 1000, Output: 80})),
			},
			// codex_bengalfox is another quota: only the "codex" line counts.
			samples: []burn.Sample{
				codexSample("2026-12-01T05:10:09Z", burn.FiveHour, 300, 20.5, time.Unix(1796107798, 0)),
				codexSample("2026-12-01T05:10:09Z", burn.Weekly, 10080, 6, time.Unix(1796528998, 0)),
			},
		},
		{
			name: "resets-in-seconds.jsonl",
			events: []burn.Event{codexEvent(T+"3@1050", T+"3", "", "", "2026-12-01T05:20:04Z", "2026-12-01T05:20:00Z",
				burn.Tokens{Input: 1000, Output: 50})},
			samples: []burn.Sample{
				codexSample("2026-12-01T05:20:04Z", burn.FiveHour, 299, 33, at("2026-12-01T07:20:04Z")),
				codexSample("2026-12-01T05:20:04Z", burn.Weekly, 10079, 12, at("2026-12-05T05:20:04Z")),
			},
		},
		{
			name: "resets-at-string.jsonl",
			events: []burn.Event{codexEvent(T+"4@1050", T+"4", "", "", "2026-12-01T05:30:04Z", "2026-12-01T05:30:00Z",
				burn.Tokens{Input: 1000, Output: 50})},
			samples: []burn.Sample{
				codexSample("2026-12-01T05:30:04Z", burn.FiveHour, 300, 34.5, at("2026-12-01T08:00:00Z")),
				codexSample("2026-12-01T05:30:04Z", burn.Weekly, 10080, 12.25, at("2026-12-05T00:00:00Z")),
			},
		},
		{
			name: "flat-percent.jsonl",
			events: []burn.Event{
				codexEvent(T+"5@1050", T+"5", "", "", "2026-12-01T05:40:04Z", "2026-12-01T05:40:00Z", burn.Tokens{Input: 1000, Output: 50}),
				codexEvent(T+"5@2100", T+"5", "", "", "2026-12-01T05:41:04Z", "2026-12-01T05:40:04Z", burn.Tokens{Input: 1000, Output: 50}),
			},
			samples: []burn.Sample{
				codexSample("2026-12-01T05:40:04Z", burn.FiveHour, 300, 50, at("2026-12-01T05:50:04Z")),
				codexSample("2026-12-01T05:40:04Z", burn.Weekly, 10080, 10, at("2026-12-02T05:40:04Z")),
				codexSample("2026-12-01T05:41:04Z", burn.FiveHour, 300, 51, time.Time{}),
				codexSample("2026-12-01T05:41:04Z", burn.Weekly, 10080, 10.5, time.Time{}),
			},
		},
		{
			name: "compaction-drop.jsonl",
			events: []burn.Event{
				codexEvent(T+"6@102000", T+"6", "", "gpt-5.1-codex", "2026-12-01T06:00:10Z", "2026-12-01T06:00:00.010Z",
					burn.Tokens{Input: 20000, CacheRead: 80000, Output: 2000}),
				codexEvent(T+"6@234000", T+"6", "", "gpt-5.1-codex", "2026-12-01T06:01:10Z", "2026-12-01T06:00:10Z",
					burn.Tokens{Input: 10000, CacheRead: 120000, Output: 2000}),
				// The estimated total dropped to 64000 (no event, no negative
				// one), repeated (no event), then grew from there.
				endsTurn(codexEvent(T+"6@100500", T+"6", "", "gpt-5.1-codex", "2026-12-01T06:02:30Z", "2026-12-01T06:01:31Z",
					burn.Tokens{Input: 15000, CacheRead: 20000, Output: 1500})),
			},
		},
		{
			name: "resumed.jsonl",
			events: []burn.Event{
				endsTurn(codexEvent(T+"7@41200", T+"7", "", "gpt-5.1-codex", "2026-11-30T20:00:30Z", "2026-11-30T20:00:00.010Z",
					burn.Tokens{Input: 10000, CacheRead: 30000, Output: 1200})),
				// The resumed turn continues the cumulative total.
				codexEvent(T+"7@97600", T+"7", "", "gpt-5.1-codex-max", "2026-12-01T07:00:40Z", "2026-12-01T07:00:00Z",
					burn.Tokens{Input: 15000, CacheRead: 40000, Output: 1400}),
				endsTurn(codexEvent(T+"7@163000", T+"7", "", "gpt-5.1-codex-max", "2026-12-01T07:01:40Z", "2026-12-01T07:00:40Z",
					burn.Tokens{Input: 10000, CacheRead: 55000, Output: 400})),
			},
		},
		{
			name: "subagent.jsonl",
			events: []burn.Event{endsTurn(codexEvent(T+"8@3090", T+"7", T+"8", "gpt-5.1-codex-mini", "2026-12-01T08:00:20Z", "2026-12-01T08:00:00.010Z",
				burn.Tokens{Input: 2000, CacheRead: 1000, Output: 90}))},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := readCodex(t, tc.name)
			checkEvents(t, u.Events, tc.events)
			if tc.samples != nil {
				checkSamples(t, u.Samples, tc.samples)
				return
			}
			for _, e := range u.Samples { // these fixtures' windows stand still
				if e.UsedPercent != 20.5 && e.UsedPercent != 6 {
					t.Errorf("unexpected sample %+v", e)
				}
			}
		})
	}
}

// The real rollouts Codex 0.169/0.171 wrote, with exact numbers (long: a
// table, a case a file).
func TestCodexRealRollouts(t *testing.T) {
	const mini = "gpt-5.1-codex-mini"
	for _, tc := range []struct {
		name      string
		events    []burn.Event
		samples   []burn.Sample
		turnEnded string
	}{
		{
			name: "appserver_two_turns_0.171.0.jsonl",
			events: []burn.Event{
				endsTurn(codexEvent("01a22fb9-4211-7c82-bf11-0134d6059990@1240", "01a22fb9-4211-7c82-bf11-0134d6059990", "", mini,
					"2026-12-01T03:50:00.158Z", "2026-12-01T03:50:00.017Z", burn.Tokens{Input: 1200, Output: 40})),
				endsTurn(codexEvent("01a22fb9-4211-7c82-bf11-0134d6059990@3680", "01a22fb9-4211-7c82-bf11-0134d6059990", "", mini,
					"2026-12-01T03:50:00.312Z", "2026-12-01T03:50:00.182Z", burn.Tokens{Input: 1400, CacheRead: 1000, Output: 40})),
			},
			samples: []burn.Sample{
				codexSample("2026-12-01T03:50:00.158Z", burn.FiveHour, 300, 12.5, time.Unix(1796107798, 0)),
				codexSample("2026-12-01T03:50:00.158Z", burn.Weekly, 10080, 3.5, time.Unix(1796528998, 0)),
				codexSample("2026-12-01T03:50:00.312Z", burn.FiveHour, 300, 15, time.Unix(1796107798, 0)),
				codexSample("2026-12-01T03:50:00.312Z", burn.Weekly, 10080, 4, time.Unix(1796528998, 0)),
			},
			turnEnded: "2026-12-01T03:50:00.316Z",
		},
		{
			name: "exec_0.169.0.jsonl",
			events: []burn.Event{
				endsTurn(codexEvent("01a22fbb-6a32-7d00-8210-38c0a22b090d@1240", "01a22fbb-6a32-7d00-8210-38c0a22b090d", "", mini,
					"2026-12-01T03:52:21.566Z", "2026-12-01T03:52:21.395Z", burn.Tokens{Input: 1200, Output: 40})),
			},
			samples: []burn.Sample{
				codexSample("2026-12-01T03:52:21.566Z", burn.FiveHour, 300, 12.5, time.Unix(1796107940, 0)),
				codexSample("2026-12-01T03:52:21.566Z", burn.Weekly, 10080, 3.5, time.Unix(1796529140, 0)),
			},
			turnEnded: "2026-12-01T03:52:21.570Z",
		},
		{
			name: "exec_two_turns_resume_0.171.0.jsonl",
			events: []burn.Event{
				endsTurn(codexEvent("01a22fb8-d987-70b1-ab5b-be232ae5be2c@1240", "01a22fb8-d987-70b1-ab5b-be232ae5be2c", "", mini,
					"2026-12-01T03:49:33.391Z", "2026-12-01T03:49:33.242Z", burn.Tokens{Input: 1200, Output: 40})),
				endsTurn(codexEvent("01a22fb8-d987-70b1-ab5b-be232ae5be2c@2480", "01a22fb8-d987-70b1-ab5b-be232ae5be2c", "", mini,
					"2026-12-01T03:51:26.045Z", "2026-12-01T03:51:25.857Z", burn.Tokens{Input: 1200, Output: 40})),
			},
			samples: []burn.Sample{
				codexSample("2026-12-01T03:49:33.391Z", burn.FiveHour, 300, 12.5, time.Unix(1796107772, 0)),
				codexSample("2026-12-01T03:49:33.391Z", burn.Weekly, 10080, 3.5, time.Unix(1796528972, 0)),
				codexSample("2026-12-01T03:51:26.045Z", burn.FiveHour, 300, 12.5, time.Unix(1796107885, 0)),
				codexSample("2026-12-01T03:51:26.045Z", burn.Weekly, 10080, 3.5, time.Unix(1796529085, 0)),
			},
			turnEnded: "2026-12-01T03:51:26.049Z",
		},
		{
			// Only another bucket (codex_bengalfox) was recorded: no samples.
			name: "multilimit_headers_0.171.0.jsonl",
			events: []burn.Event{
				codexEvent("01a22fbe-b60f-7bd1-aa2c-eba102c65a58@1240", "01a22fbe-b60f-7bd1-aa2c-eba102c65a58", "", "",
					"2026-12-01T03:55:57.523Z", "2026-12-01T03:55:57.360Z", burn.Tokens{Input: 1200, Output: 40}),
				codexEvent("01a22fbe-b60f-7bd1-aa2c-eba102c65a58@3680", "01a22fbe-b60f-7bd1-aa2c-eba102c65a58", "", "",
					"2026-12-01T03:55:57.668Z", "2026-12-01T03:55:57.523Z", burn.Tokens{Input: 1400, CacheRead: 1000, Output: 40}),
			},
		},
		{
			// primary/secondary null: no data, not 0 %.
			name: "no_ratelimit_headers_0.171.0.jsonl",
			events: []burn.Event{
				endsTurn(codexEvent("01a22fbd-6677-7013-89eb-364eb4b79819@1240", "01a22fbd-6677-7013-89eb-364eb4b79819", "", mini,
					"2026-12-01T03:54:31.683Z", "2026-12-01T03:54:31.537Z", burn.Tokens{Input: 1200, Output: 40})),
			},
			turnEnded: "2026-12-01T03:54:31.685Z",
		},
		{
			// The first request was refused at the limit: info null, samples only.
			name: "usage_limit_429_info_null_0.171.0.jsonl",
			samples: []burn.Sample{
				codexSample("2026-12-01T03:51:20.257Z", burn.FiveHour, 300, 100, time.Unix(1796104279, 0)),
				codexSample("2026-12-01T03:51:20.257Z", burn.Weekly, 10080, 64, time.Unix(1796497079, 0)),
			},
			turnEnded: "2026-12-01T03:51:20.272Z",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := readCodex(t, filepath.Join("real", tc.name))
			checkEvents(t, u.Events, tc.events)
			checkSamples(t, u.Samples, tc.samples)
			if tc.turnEnded != "" {
				if len(u.Activity) != 1 {
					t.Fatalf("activity %+v", u.Activity)
				}
				a := u.Activity[0]
				if !a.At.Equal(at(tc.turnEnded)) || !a.TurnEnded || a.Provider != burn.Codex {
					t.Errorf("activity %+v, want turn ended at %s", a, tc.turnEnded)
				}
			}
			if len(u.Warnings) != 0 {
				t.Errorf("warnings %v", u.Warnings)
			}
		})
	}
}

// An archived copy of a rollout repeats its lines: nothing counts twice.
func TestCodexArchivedCopy(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "codex", "real", "appserver_two_turns_0.171.0.jsonl")
	name := "rollout-2026-12-01T03-49-59-01a22fb9-4211-7c82-bf11-0134d6059990.jsonl"
	copyFile(t, src, filepath.Join(dir, "sessions", "2026", "12", "01", name))
	copyFile(t, src, filepath.Join(dir, "archived_sessions", name))
	both := coldRead(t, Roots{Codex: []string{dir}})
	one := readCodex(t, filepath.Join("real", "appserver_two_turns_0.171.0.jsonl"))
	checkEvents(t, both.Events, one.Events)
	checkSamples(t, both.Samples, one.Samples)
	if len(both.Activity) != 1 {
		t.Errorf("activity %+v", both.Activity)
	}
}

func TestClaudeTurnEnded(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"type":"assistant","message":{"id":"msg_1","stop_reason":"end_turn","usage":{"output_tokens":5}},"timestamp":"2026-11-20T10:00:00.000Z"}`, true},
		{`{"type":"assistant","message":{"id":"msg_1","stop_reason":"tool_use","usage":{"output_tokens":5}},"timestamp":"2026-11-20T10:00:00.000Z"}`, false},
		{`{"type":"assistant","message":{"id":"msg_1","stop_reason":null,"usage":{"output_tokens":1}},"timestamp":"2026-11-20T10:00:00.000Z"}`, false},
		// Any stop but a tool call hands the turn back.
		{`{"type":"assistant","message":{"id":"msg_1","stop_reason":"stop_sequence","usage":{"output_tokens":5}},"timestamp":"2026-11-20T10:00:00.000Z"}`, true},
		{`{"type":"assistant","message":{"id":"msg_1","stop_reason":"max_tokens","usage":{"output_tokens":5}},"timestamp":"2026-11-20T10:00:00.000Z"}`, true},
		{`{"type":"assistant","message":{"id":"msg_1","stop_reason":"refusal","usage":{"output_tokens":5}},"timestamp":"2026-11-20T10:00:00.000Z"}`, true},
		// A limit hit Claude Code writes itself: no response's stop.
		{`{"type":"assistant","isApiErrorMessage":true,"error":"rate_limit","message":{"id":"msg_limit_1","model":"<synthetic>","stop_reason":"stop_sequence","usage":{"output_tokens":0}},"timestamp":"2026-11-20T10:00:00.000Z"}`, false},
		{`{"type":"user","message":{"content":"the words \"stop_reason\":\"max_tokens\""},"timestamp":"2026-11-20T10:00:00.100Z"}`, false},
		{`{"type":"system","subtype":"turn_duration","durationMs":48211,"timestamp":"2026-11-20T10:00:00.100Z"}`, true},
		{`{"type":"system","subtype":"compact_boundary","timestamp":"2026-11-20T10:00:00.100Z"}`, false},
		{`{"type":"user","message":{"content":"the words end_turn and turn_duration"},"timestamp":"2026-11-20T10:00:00.100Z"}`, false},
		{`{"type":"progress","data":{"message":{"stop_reason":"end_turn"}},"timestamp":"2026-11-20T10:00:00.100Z"}`, false},
	} {
		if got := claudeTurnEnded([]byte(c.line)); got != c.want {
			t.Errorf("claudeTurnEnded(%s) = %v, want %v", c.line, got, c.want)
		}
		// The response's event says the same.
		if out, ok := parseClaude([]byte(c.line), sid, "", 0.1, nil); ok && out.msg != nil && out.msg.ev.EndsTurn != c.want {
			t.Errorf("EndsTurn of %s = %v, want %v", c.line, out.msg.ev.EndsTurn, c.want)
		}
	}
}

// A subagent whose parent responded after its last response is done, its
// last response cut off inside a tool call or not; one still working (its
// parent quiet since) is not, nor is a read as of an instant before the
// parent moved on.
func TestSubagentDoneOnceParentMovesOn(t *testing.T) {
	tr := newTree(t)
	main := tr.claudeFile(sid)
	subDir := tr.mkdir(tr.claude, "projects", "-home-ann-src-my-app", sid, "subagents")
	subA, subB := filepath.Join(subDir, "agent-a1.jsonl"), filepath.Join(subDir, "agent-b2.jsonl")
	side := func(path string, sec int, id string) {
		line := strings.Replace(claudeAssistant(sec, id, 50, "tool_use"), `"isSidechain":false`, `"isSidechain":true`, 1)
		tr.append(path, line)
	}
	tr.write(main, claudeUser(0)+claudeAssistant(1, "msg_1", 5, "tool_use"))
	side(subA, 10, "msg_a1")
	side(subA, 20, "msg_a2")
	side(subB, 15, "msg_b1")
	tr.append(main, claudeUser(30)+claudeAssistant(31, "msg_2", 5, "tool_use"))
	side(subB, 40, "msg_b2") // b still works after the parent's response
	ended := func(u Usage) map[string]bool {
		m := map[string]bool{}
		for _, e := range u.Events {
			m[e.Key] = e.EndsTurn
		}
		return m
	}
	got := ended(coldRead(t, tr.roots()))
	want := map[string]bool{"msg_1/req_msg_1": false, "msg_a1/req_msg_a1": false, "msg_a2/req_msg_a2": true,
		"msg_b1/req_msg_b1": false, "msg_b2/req_msg_b2": false, "msg_2/req_msg_2": false}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ends turn: %v, want %v", got, want)
	}
	// As of an instant before the parent's second response: a still works.
	tl := New(Options{Roots: tr.roots(), CacheReadWeight: 0.1, Until: at(stampAt(30))})
	tl.Scan(at(stampAt(30)))
	if got := ended(tl.Usage(time.Time{})); got["msg_a2/req_msg_a2"] {
		t.Errorf("as of before the parent moved on, a is done: %v", got)
	}
}
