package synth

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

type demoSession struct {
	id, cwd, model string
	rate           float64       // weighted tokens per second
	every          time.Duration // one response per interval
	from, to       time.Duration // before the end
	agent          string        // a subagent of id
}

// Demo writes the built-in sample history into dir as it stands at end
// (dir/claude, dir/codex, dir/state/samples.jsonl): three Claude sessions run
// the 5-hour window dry 20 minutes before its reset, a fourth is idle, and a
// Codex session burns slowly and lasts.
func Demo(dir string, end time.Time) error {
	claude := []demoSession{
		{id: "7d0c6a52-5a8e-4e43-9c55-1f3b0c3e9a01", cwd: "/home/dev/src/shop-api", model: "claude-opus-4-5-20251101", rate: 2000, every: 12 * time.Second, from: 45 * time.Minute, to: 2 * time.Second},
		{id: "7d0c6a52-5a8e-4e43-9c55-1f3b0c3e9a01", cwd: "/home/dev/src/shop-api", model: "claude-sonnet-4-5-20250929", rate: 500, every: 9 * time.Second, from: 45 * time.Minute, to: 4 * time.Second, agent: "a4f19c2"},
		{id: "2b9e4f10-3c1d-4a7e-8f20-6d5c4b3a2910", cwd: "/home/dev/src/docs-site", model: "claude-sonnet-4-5-20250929", rate: 1000, every: 15 * time.Second, from: 45 * time.Minute, to: 6 * time.Second},
		{id: "c3a8d7e6-1f2b-4c5d-9e0f-a1b2c3d4e5f6", cwd: "/home/dev/src/infra", model: "claude-sonnet-4-5-20250929", rate: 700, every: 20 * time.Second, from: 45 * time.Minute, to: 50 * time.Second},
		{id: "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", cwd: "/home/dev/src/notes", model: "claude-haiku-4-5-20251001", rate: 300, every: 30 * time.Second, from: 2*time.Hour + 40*time.Minute, to: 2*time.Hour + 10*time.Minute},
	}
	for _, s := range claude {
		if err := writeClaude(dir, s, end); err != nil {
			return err
		}
	}
	if err := writeCodex(dir, end); err != nil {
		return err
	}
	return writeDemoSamples(dir, end)
}

func writeClaude(dir string, s demoSession, end time.Time) error {
	project := filepath.Join(dir, "claude", "projects", encodeCwd(s.cwd))
	path := filepath.Join(project, s.id+".jsonl")
	c := &Claude{SessionID: s.id, Cwd: s.cwd, Model: s.model, Agent: s.agent}
	if s.agent != "" {
		path = filepath.Join(project, s.id, "subagents", "agent-"+s.agent+".jsonl")
	}
	var lines [][]byte
	n := 0
	for at := end.Add(-s.from); !at.After(end.Add(-s.to)); at = at.Add(s.every) {
		n++
		w := s.rate * s.every.Seconds()
		u := Usage{CacheRead: 30000}
		rest := math.Max(w-3000, 100)
		u.Output = int64(rest * 0.4)
		u.CacheCreation = int64(rest * 0.55)
		u.Input = int64(rest) - u.Output - u.CacheCreation
		lines = append(lines, c.User(at.Add(-s.every+time.Second), 200))
		stop := "tool_use"
		if n%6 == 0 {
			stop = "end_turn"
		}
		msg := fmt.Sprintf("msg_01%s%s%05d", short(s.id), s.agent, n)
		req := fmt.Sprintf("req_011C%s%s%05d", short(s.id), s.agent, n)
		lines = append(lines, c.Response(at, msg, req, u, 2, stop)...)
	}
	if s.cwd == "/home/dev/src/infra" {
		// Waiting on a long tool call: a tool result arrived, no response yet.
		lines = append(lines, c.User(end.Add(-20*time.Second), 500))
	}
	return writeLines(path, lines)
}

func writeCodex(dir string, end time.Time) error {
	start := end.Add(-50*time.Minute + 15*time.Second)
	local := start.UTC()
	id := "01a2c0de-7e57-7a11-8c0d-e00000000001"
	day := filepath.Join(dir, "codex", "sessions", local.Format("2006"), local.Format("01"), local.Format("02"))
	path := filepath.Join(day, "rollout-"+local.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	x := &Codex{ThreadID: id, Cwd: "/home/dev/src/api-gateway", Model: "gpt-5.1-codex"}
	lines := [][]byte{x.Meta(start)}
	reset5h, resetWeek := end.Add(3*time.Hour+12*time.Minute), end.Add(4*24*time.Hour+6*time.Hour)
	used := 9.0
	for at := start.Add(20 * time.Second); !at.After(end.Add(-5 * time.Second)); at = at.Add(25 * time.Second) {
		lines = append(lines, x.TurnStart(at.Add(-20*time.Second))...)
		lines = append(lines, x.Item(at.Add(-5*time.Second), 200))
		used += 0.0275 // about 12 m/h of a 5-hour window
		u := Usage{Input: 9000, CacheRead: 6000, Output: 1200}
		lines = append(lines, x.TokenCount(at,
			u,
			&Window{UsedPercent: math.Round(used*100) / 100, WindowMinutes: 300, ResetsAt: reset5h},
			&Window{UsedPercent: 31, WindowMinutes: 10080, ResetsAt: resetWeek}))
		lines = append(lines, x.TaskComplete(at.Add(time.Second)))
	}
	return writeLines(path, lines)
}

func writeDemoSamples(dir string, end time.Time) error {
	reset5h, resetWeek := end.Add(90*time.Minute), end.Add(3*24*time.Hour+2*time.Hour)
	var lines [][]byte
	for ago := 40 * time.Minute; ago >= 0; ago -= 30 * time.Second {
		lines = append(lines, statusline(end.Add(-ago), 58-0.6*ago.Minutes(), reset5h, 34-0.005*ago.Minutes(), resetWeek))
	}
	return writeLines(filepath.Join(dir, "state", "samples.jsonl"), lines)
}

// encodeCwd is Claude Code's project folder name: every character that is
// not a letter or digit becomes '-'.
func encodeCwd(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func writeLines(path string, lines [][]byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if _, err := f.Write(l); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
