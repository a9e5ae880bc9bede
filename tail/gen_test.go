package tail

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// history writes realistic session files: the line mix, sizes and key
// order of the real formats (user lines with tool results from a few
// hundred bytes to hundreds of KB, streamed assistant lines, Codex
// envelopes with a 20 KB session_meta).
type history struct {
	rng     *rand.Rand
	filler  string
	session string
}

func newHistory(seed uint64) *history {
	return &history{
		rng:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		filler:  strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit; ", 8000),
		session: "5b1d9f0e-2222-4333-8444-a55566667777",
	}
}

func (h *history) text(n int) string {
	if n > len(h.filler) {
		n = len(h.filler)
	}
	off := h.rng.IntN(len(h.filler) - n + 1)
	return h.filler[off : off+n]
}

// toolSize is the size of one tool result: mostly small, sometimes large.
func (h *history) toolSize() int {
	switch r := h.rng.Float64(); {
	case r < 0.6:
		return 200 + h.rng.IntN(2000)
	case r < 0.95:
		return 2000 + h.rng.IntN(30000)
	default:
		return 50000 + h.rng.IntN(250000)
	}
}

// stamp spreads the bytes evenly over [start, end]: the line at byte n of
// size is stamped start + (end−start)·n/size.
func (h *history) stamp(n, size int64, start, end time.Time) string {
	ts := start.Add(time.Duration(float64(end.Sub(start)) * min(float64(n)/float64(size), 1)))
	return ts.UTC().Format("2006-01-02T15:04:05.000Z")
}

// claude writes about size bytes of one transcript whose lines are evenly
// stamped from start to end, and returns the bytes written.
func (h *history) claude(w io.Writer, size int64, start, end time.Time) int64 {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	stamp := func() string { return h.stamp(n, size, start, end) }
	put := func(s string) {
		k, _ := bw.WriteString(s)
		n += int64(k)
	}
	for i := 0; n < size; i++ {
		put(fmt.Sprintf(`{"parentUuid":"p%d","isSidechain":false,"userType":"external","cwd":"/home/dev/src/big","sessionId":"%s","version":"2.1.328","gitBranch":"main","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"%s"}]},"uuid":"u%d","timestamp":"%s","toolUseResult":{"stdout":"%s","stderr":"","interrupted":false}}`+"\n",
			i, h.session, i, h.text(h.toolSize()/2), i, stamp(), h.text(h.toolSize()/2)))
		id, req := fmt.Sprintf("msg_01%016d", i), fmt.Sprintf("req_011C%016d", i)
		cc, cr := 200+h.rng.IntN(4000), 20000+h.rng.IntN(150000)
		for j, out := range []string{"1", "1", fmt.Sprint(50 + h.rng.IntN(900))} {
			stop := "null"
			if j == 2 {
				stop = `"tool_use"`
			}
			put(fmt.Sprintf(`{"parentUuid":"u%d","isSidechain":false,"userType":"external","cwd":"/home/dev/src/big","sessionId":"%s","version":"2.1.328","gitBranch":"main","message":{"id":"%s","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"%s"}],"stop_reason":%s,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":%d},"output_tokens":%s,"service_tier":"standard"}},"requestId":"%s","type":"assistant","uuid":"a%d-%d","timestamp":"%s"}`+"\n",
				i, h.session, id, h.text(100+h.rng.IntN(1500)), stop, cc, cr, cc, out, req, i, j, stamp()))
		}
	}
	bw.Flush()
	return n
}

// codex writes about size bytes of one rollout stamped from start to end.
func (h *history) codex(w io.Writer, size int64, start, end time.Time) int64 {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	put := func(s string) {
		k, _ := bw.WriteString(s)
		n += int64(k)
	}
	id := "01a22fc0-1111-7000-8000-000000000abc"
	stamp := func() string { return h.stamp(n, size, start, end) }
	put(fmt.Sprintf(`{"timestamp":"%s","type":"session_meta","payload":{"id":"%s","timestamp":"%s","cwd":"/home/dev/src/big","originator":"codex_cli_rs","cli_version":"0.171.0","source":"cli","model_provider":"openai","base_instructions":{"text":"%s"}}}`+"\n",
		stamp(), id, stamp(), h.text(20000)))
	var in, cached, out int64
	for i := 0; n < size; i++ {
		put(fmt.Sprintf(`{"timestamp":"%s","type":"turn_context","payload":{"cwd":"/home/dev/src/big","approval_policy":"on-request","model":"gpt-5.1-codex","effort":"medium","summary":"auto"}}`+"\n", stamp()))
		put(fmt.Sprintf(`{"timestamp":"%s","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"%s"}]}}`+"\n", stamp(), h.text(200)))
		put(fmt.Sprintf(`{"timestamp":"%s","type":"response_item","payload":{"type":"function_call_output","call_id":"call_%d","output":"%s"}}`+"\n", stamp(), i, h.text(h.toolSize())))
		li, lc, lo := int64(20000+h.rng.IntN(80000)), int64(0), int64(100+h.rng.IntN(2000))
		lc = li * 8 / 10
		in, cached, out = in+li, cached+lc, out+lo
		put(fmt.Sprintf(`{"timestamp":"%s","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d},"last_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d},"model_context_window":258400},"rate_limits":{"limit_id":"codex","primary":{"used_percent":%.1f,"window_minutes":300,"resets_at":1796107798},"secondary":{"used_percent":3.0,"window_minutes":10080,"resets_at":1796528998}}}}`+"\n",
			stamp(), in, cached, out, in+out, li, lc, lo, li+lo, float64(i%1000)/10))
		put(fmt.Sprintf(`{"timestamp":"%s","type":"event_msg","payload":{"type":"task_complete","turn_id":"t%d","last_agent_message":"%s"}}`+"\n", stamp(), i, h.text(300)))
	}
	bw.Flush()
	return n
}
