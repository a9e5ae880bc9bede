// Package synth writes agent histories in the real on-disk formats (Claude Code
// transcripts, Codex rollouts) for the demo, tests, benchmarks and the soak
// tool. Every line it writes has the shape docs/formats.md documents, streamed
// duplicates included, so what reads them is exercised as on a real disk.
package synth

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
)

// Usage is one API response's token counts in the vendor's own terms:
// for Claude, Input excludes the cache; for Codex, Input includes Cached.
type Usage struct {
	Input, Output, CacheCreation, CacheRead int64
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Claude writes one Claude Code transcript (or a subagent's file when Agent
// is set).
type Claude struct {
	SessionID string
	Cwd       string
	Model     string
	Agent     string // subagent id: lines get isSidechain and agentId
	// NoRequestID drops requestId, as newer Claude Code versions do.
	NoRequestID bool
	n           int
}

func (c *Claude) next() int { c.n++; return c.n }

func (c *Claude) common(typ string, at time.Time) map[string]any {
	m := map[string]any{
		"parentUuid":  fmt.Sprintf("00000000-0000-4000-8000-%012d", c.n),
		"isSidechain": c.Agent != "",
		"userType":    "external",
		"cwd":         c.Cwd,
		"sessionId":   c.SessionID,
		"version":     "2.1.328",
		"gitBranch":   "main",
		"type":        typ,
		"uuid":        fmt.Sprintf("00000000-0000-4000-9000-%012d", c.next()),
		"timestamp":   stamp(at),
	}
	if c.Agent != "" {
		m["agentId"] = c.Agent
	}
	return m
}

// Snapshot is the file-history-snapshot line Claude Code opens a session
// with and writes before each prompt: its only stamp is nested, none is at
// the top level.
func (c *Claude) Snapshot(at time.Time) []byte {
	id := fmt.Sprintf("00000000-0000-4000-a000-%012d", c.n)
	return line(map[string]any{
		"type":             "file-history-snapshot",
		"messageId":        id,
		"snapshot":         map[string]any{"messageId": id, "trackedFileBackups": map[string]any{}, "timestamp": stamp(at)},
		"isSnapshotUpdate": false,
	})
}

// User is a user line: a prompt or a tool result of about size bytes.
func (c *Claude) User(at time.Time, size int) []byte {
	m := c.common("user", at)
	m["message"] = map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "content": strings.Repeat("x", size)},
	}}
	return line(m)
}

// Response is one API response written as Claude Code streams it: one line
// per content block, all sharing the message id; lines before the last carry
// a placeholder output count and no stop reason. stop is "end_turn" or
// "tool_use".
func (c *Claude) Response(at time.Time, msgID, reqID string, u Usage, blocks int, stop string) [][]byte {
	if blocks < 1 {
		blocks = 1
	}
	var out [][]byte
	for i := range blocks {
		last := i == blocks-1
		output, stopReason := int64(1), any(nil)
		if last {
			output, stopReason = u.Output, stop
		}
		m := c.common("assistant", at.Add(time.Duration(i-blocks+1)*150*time.Millisecond))
		if !c.NoRequestID {
			m["requestId"] = reqID
		}
		m["message"] = map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": c.Model,
			"content":     []any{map[string]any{"type": "text", "text": "ok"}},
			"stop_reason": stopReason, "stop_sequence": nil,
			"usage": map[string]any{
				"input_tokens":                u.Input,
				"cache_creation_input_tokens": u.CacheCreation,
				"cache_read_input_tokens":     u.CacheRead,
				"cache_creation":              map[string]any{"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": u.CacheCreation},
				"output_tokens":               output,
				"service_tier":                "standard",
			},
		}
		out = append(out, line(m))
	}
	return out
}

// LimitHit is the synthetic error line Claude Code writes when a window is
// exhausted; kind is "five_hour" or "seven_day".
func (c *Claude) LimitHit(at, resetsAt time.Time, kind string) []byte {
	m := c.common("assistant", at)
	m["isApiErrorMessage"] = true
	m["error"] = "rate_limit"
	m["quotaLimits"] = map[string]any{"status": "rejected", "resetsAt": resetsAt.Unix(), "rateLimitType": kind}
	m["message"] = map[string]any{
		"id": fmt.Sprintf("msg_limit_%d", c.n), "type": "message", "role": "assistant", "model": "<synthetic>",
		"content":     []any{map[string]any{"type": "text", "text": "Claude usage limit reached."}},
		"stop_reason": "stop_sequence",
		"usage":       map[string]any{"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}
	return line(m)
}

// statusline is what `runway statusline` appends to the sample log at at:
// Claude's 5-hour and weekly windows, their percents to a tenth.
func statusline(at time.Time, used5h float64, reset5h time.Time, usedWeek float64, resetWeek time.Time) []byte {
	var b []byte
	for _, s := range []burn.Sample{
		{ObservedAt: at, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: math.Round(used5h*10) / 10, ResetsAt: reset5h, Source: burn.SourceStatusline},
		{ObservedAt: at, Provider: burn.Claude, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: math.Round(usedWeek*10) / 10, ResetsAt: resetWeek, Source: burn.SourceStatusline},
	} {
		b = append(b, line(s)...)
	}
	return b
}

// Window is one rate-limit window as a Codex rollout records it.
type Window struct {
	UsedPercent   float64
	WindowMinutes int
	ResetsAt      time.Time
}

// Codex writes one Codex rollout, keeping the cumulative token total.
type Codex struct {
	ThreadID string
	Cwd      string
	Model    string
	Parent   string // parent thread id of a subagent
	total    Usage
	ordinal  int
}

func (x *Codex) envelope(at time.Time, typ string, payload any) []byte {
	b := line(map[string]any{"timestamp": stamp(at), "ordinal": x.ordinal, "type": typ, "payload": payload})
	x.ordinal++
	return b
}

// Meta is the session_meta line that opens a rollout.
func (x *Codex) Meta(at time.Time) []byte {
	p := map[string]any{
		"session_id": x.ThreadID, "id": x.ThreadID, "timestamp": stamp(at), "cwd": x.Cwd,
		"originator": "codex_exec", "cli_version": "0.171.0", "source": "exec",
		"model_provider": "openai", "base_instructions": "<elided>",
	}
	if x.Parent != "" {
		p["source"] = map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": x.Parent, "depth": 1}}}
	}
	return x.envelope(at, "session_meta", p)
}

// TurnStart is the task_started and turn_context lines that open a turn.
func (x *Codex) TurnStart(at time.Time) [][]byte {
	return [][]byte{
		x.envelope(at, "event_msg", map[string]any{"type": "task_started", "model_context_window": 258400}),
		x.envelope(at, "turn_context", map[string]any{"cwd": x.Cwd, "model": x.Model, "approval_policy": "never"}),
	}
}

// TokenCount adds one response's usage to the cumulative total and writes
// the token_count line; primary and secondary may be nil (no data).
func (x *Codex) TokenCount(at time.Time, last Usage, primary, secondary *Window) []byte {
	x.total.Input += last.Input
	x.total.Output += last.Output
	x.total.CacheRead += last.CacheRead
	return x.envelope(at, "event_msg", map[string]any{
		"type": "token_count",
		"info": map[string]any{
			"total_token_usage":    codexUsage(x.total),
			"last_token_usage":     codexUsage(last),
			"model_context_window": 258400,
		},
		"rate_limits": map[string]any{
			"limit_id": "codex", "limit_name": nil,
			"primary": codexWindow(primary), "secondary": codexWindow(secondary),
			"credits": nil, "plan_type": nil,
		},
	})
}

// TaskComplete ends a turn.
func (x *Codex) TaskComplete(at time.Time) []byte {
	return x.envelope(at, "event_msg", map[string]any{"type": "task_complete", "last_agent_message": "done"})
}

// Item is a response_item line of about size bytes (no usage: readers skip it).
func (x *Codex) Item(at time.Time, size int) []byte {
	return x.envelope(at, "response_item", map[string]any{"type": "message", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": strings.Repeat("y", size)}}})
}

func codexUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens": u.Input, "cached_input_tokens": u.CacheRead, "output_tokens": u.Output,
		"reasoning_output_tokens": u.Output / 3, "total_tokens": u.Input + u.Output,
	}
}

func codexWindow(w *Window) any {
	if w == nil {
		return nil
	}
	return map[string]any{"used_percent": w.UsedPercent, "window_minutes": w.WindowMinutes, "resets_at": w.ResetsAt.Unix()}
}

func line(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of plain values reach here
	}
	return append(b, '\n')
}
