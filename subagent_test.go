package runway

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/quota"
)

// A session burns 60 m/h; a subagent of it adds 120 m/h for five minutes
// and finishes. Five and twenty-five minutes later the account burns 60
// m/h again, whether the subagent's last response ended its turn or was
// cut off inside a tool call (its parent has moved on past it).
func TestFinishedSubagentStopsBurning(t *testing.T) {
	for _, tc := range []struct{ last, source string }{
		{"end_turn", "statusline"}, {"end_turn", "oauth"}, {"tool_use", "oauth"}, {"max_tokens", "oauth"},
	} {
		last := tc.last
		t.Run(tc.last+" "+tc.source, func(t *testing.T) {
			w := newWorld(t)
			base := w.start.Add(time.Hour)
			s := w.session("ffff0000-0000-4000-8000-00000000000f")
			sub := &synth.Claude{SessionID: s.c.SessionID, Cwd: s.c.Cwd, Model: "claude-haiku-4-5-20251001", Agent: "a1b2c3"}
			subPath := filepath.Join(filepath.Dir(s.path), s.c.SessionID, "subagents", "agent-a1b2c3.jsonl")
			u := synth.Usage{Input: 12, Output: 900, CacheCreation: 1500, CacheRead: 40000}
			perReply := 20.0 / 180 // % a reply costs: 60 m/h (20 %/h) at one every 20 s
			used := 30.0
			subStart, subEnd := base.Add(10*time.Minute), base.Add(15*time.Minute)
			next := base
			n := 0
			figure := map[time.Duration]float64{}
			for at := base; !at.After(base.Add(41 * time.Minute)); at = at.Add(10 * time.Second) {
				if !at.Before(subStart) && at.Before(subEnd) {
					// The subagent: a response every 10 s (120 m/h).
					n++
					stop := "tool_use"
					if !at.Add(10 * time.Second).Before(subEnd) {
						stop = last
					}
					w.write(subPath, sub.Response(at, fmt.Sprintf("msg_sub_%04d", n), fmt.Sprintf("req_sub_%04d", n), u, 1, stop)...)
					used += perReply
				}
				if !at.Before(next) {
					if tc.source == "statusline" {
						s.reply(at, math.Round((used+perReply)*10)/10)
					} else {
						n++
						w.write(s.path, s.c.User(at.Add(-10*time.Second), 300))
						w.write(s.path, s.c.Response(at, fmt.Sprintf("msg_p_%04d", n), fmt.Sprintf("req_p_%04d", n), u, 1, "tool_use")...)
					}
					used += perReply
					next = at.Add(20 * time.Second)
				}
				if tc.source == "oauth" && at.Sub(base)%time.Minute == 0 {
					// The usage endpoint, polled each minute: whole percents.
					log, err := quota.OpenLog(w.stateDir)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := log.Record(at, []burn.Sample{{ObservedAt: at, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300,
						UsedPercent: math.Floor(used), ResetsAt: w.start.Add(4 * time.Hour), Source: burn.SourceOAuth}}); err != nil {
						t.Fatal(err)
					}
				}
				for _, after := range []time.Duration{5 * time.Minute, 25 * time.Minute} {
					if at.Equal(subEnd.Add(after)) {
						p := w.claudeWindow(at.Add(5 * time.Second))
						figure[after] = p.Burn.QuotaMinutesPerHour
						t.Logf("%v after: %.0f m/h %s, elsewhere %.0f", after, p.Burn.QuotaMinutesPerHour, p.Burn.Method, p.ElsewhereQuotaMinutesPerHour)
					}
				}
			}
			t.Logf("subagent's last response %s: account %.0f m/h 5 min after, %.0f m/h 25 min after (true 60)", last, figure[5*time.Minute], figure[25*time.Minute])
			for after, mh := range figure {
				if math.Abs(mh-60)/60 > 0.1 {
					t.Errorf("%v after the subagent finished: %.0f m/h, want about 60", after, mh)
				}
			}
		})
	}
}
