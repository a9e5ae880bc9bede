package quota

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
)

// The test binary doubles as a fake `codex app-server` replaying a recorded
// exchange and as a sample log appender, chosen by the environment.
const (
	helperEnv = "RUNWAY_QUOTA_HELPER" // "appserver" or "append"
	replayEnv = "RUNWAY_QUOTA_REPLAY" // the recorded exchange to replay
	// replay; hang (no answer to the rate-limit read); hang-init (none to
	// initialize); crash (dies mid-answer); stubborn (replays, but ignores
	// its closed stdin and must be killed).
	modeEnv       = "RUNWAY_QUOTA_MODE"
	transcriptEnv = "RUNWAY_QUOTA_TRANSCRIPT"
)

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "appserver":
		os.Exit(fakeAppServer(os.Getenv(replayEnv), os.Getenv(modeEnv), os.Getenv(transcriptEnv)))
	case "append":
		os.Exit(appendHelper())
	}
	os.Exit(m.Run())
}

// step is one message the recorded client sent and every line the server
// wrote after it, before the next one.
type step struct {
	method string
	id     string // raw JSON id of the request, "" for a notification
	out    []string
}

var elapsed = regexp.MustCompile(`\s+\[t\+[0-9.]+s\]$`)

// loadExchange parses a recorded exchange (`>>` sent, `<<` received).
func loadExchange(path string) ([]step, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var steps []step
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, ">> "):
			req := line[3:]
			s := step{method: gjson.Get(req, "method").Str}
			if id := gjson.Get(req, "id"); id.Exists() {
				s.id = id.Raw
			}
			steps = append(steps, s)
		case strings.HasPrefix(line, "<< ") && len(steps) > 0:
			steps[len(steps)-1].out = append(steps[len(steps)-1].out, elapsed.ReplaceAllString(line[3:], ""))
		}
	}
	return steps, nil
}

// answer is the recorded line with the recorded request's id replaced by
// the id the client used; every other byte is the recording's.
func answer(line, recordedID, id string) string {
	r := gjson.Get(line, "id")
	if !r.Exists() || r.Raw != recordedID || r.Index <= 0 {
		return line
	}
	return line[:r.Index] + id + line[r.Index+len(r.Raw):]
}

func fakeAppServer(replay, mode, transcript string) int {
	steps, err := loadExchange(replay)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake app-server:", err)
		return 2
	}
	var record *os.File
	if transcript != "" {
		record, _ = os.OpenFile(transcript, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	}
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	pos := 0
	for in.Scan() {
		line := in.Text()
		if record != nil {
			fmt.Fprintln(record, line)
		}
		method := gjson.Get(line, "method").Str
		id := gjson.Get(line, "id").Raw
		switch {
		case mode == "hang-init" && method == "initialize",
			mode == "hang" && method == "account/rateLimits/read":
			continue
		case mode == "crash" && method == "account/rateLimits/read":
			fmt.Fprintln(os.Stderr, "\x1b[31mERROR\x1b[0m thread 'main' panicked at fake.rs:1:1")
			out.WriteString(`{"id":` + id + `,"result":{"rateLim`)
			out.Flush()
			return 3
		}
		at := -1
		for i := pos; i < len(steps) && at < 0; i++ {
			if steps[i].method == method {
				at = i
			}
		}
		if at < 0 && mode == "repeat" {
			// Out of recorded answers: the last one for this method again.
			for i := range steps {
				if steps[i].method == method {
					at = i
				}
			}
		}
		if at < 0 {
			continue
		}
		for _, o := range steps[at].out {
			out.WriteString(answer(o, steps[at].id, id))
			out.WriteByte('\n')
		}
		out.Flush()
		pos = at + 1
	}
	if mode == "stubborn" {
		// Ignore the closed stdin, as a wedged child would, until killed.
		for {
			time.Sleep(time.Hour)
		}
	}
	return 0
}

// appendHelper appends RUNWAY_QUOTA_N samples, one Append each, marked
// with RUNWAY_QUOTA_P, to the log in RUNWAY_QUOTA_DIR.
func appendHelper() int {
	l, err := OpenLog(os.Getenv("RUNWAY_QUOTA_DIR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	n, _ := strconv.Atoi(os.Getenv("RUNWAY_QUOTA_N"))
	p, _ := strconv.Atoi(os.Getenv("RUNWAY_QUOTA_P"))
	for i := range n {
		if err := l.Append(markedSample(p, i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	return 0
}

// markedSample is sample i of process p: unique per (p, i).
func markedSample(p, i int) burn.Sample {
	base := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	return burn.Sample{
		ObservedAt:    base.Add(time.Duration(p)*time.Hour + time.Duration(i)*time.Second),
		Provider:      burn.Claude,
		Window:        burn.FiveHour,
		WindowMinutes: 300,
		UsedPercent:   float64(i%1000) / 10,
		ResetsAt:      base.Add(5 * time.Hour),
		Source:        burn.SourceStatusline,
	}
}
