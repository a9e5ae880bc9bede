package quota

import (
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
)

// Statusline is what runway takes from the JSON Claude Code writes to its
// statusLine command's stdin (docs/formats.md, "Statusline stdin").
type Statusline struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	Model          string // the model id, else its display name
	ModelName      string // the model's display name, else its id
	// ContextUsedPercent is how full the session's context window is, 0
	// when stdin does not say.
	ContextUsedPercent float64
	Version            string // Claude Code's version
	// Samples are the rate_limits windows, observed now; none on API-key
	// logins and before the session's first reply.
	Samples []burn.Sample
}

// errNotJSON is returned for statusline input that is not a JSON object.
var errNotJSON = errors.New("quota: statusline input is not a JSON object")

// ParseStatusline reads Claude Code's statusline stdin. Every field is
// optional; only input that is not a JSON object is an error.
func ParseStatusline(stdin []byte, now time.Time) (Statusline, error) {
	if !jsonsafe.Valid(stdin) {
		return Statusline{}, errNotJSON
	}
	root := gjson.ParseBytes(stdin)
	if !root.IsObject() {
		return Statusline{}, errNotJSON
	}
	st := Statusline{
		SessionID:      str(root.Get("session_id")),
		TranscriptPath: str(root.Get("transcript_path")),
		Cwd:            str(root.Get("cwd")),
		Version:        str(root.Get("version")),
	}
	if st.Cwd == "" {
		st.Cwd = str(root.Get("workspace.current_dir"))
	}
	switch m := root.Get("model"); {
	case m.Type == gjson.String:
		st.Model = m.Str
	case m.IsObject():
		st.Model = str(m.Get("id"))
		if st.Model == "" {
			st.Model = str(m.Get("display_name"))
		}
	}
	st.ModelName = str(root.Get("model.display_name"))
	if st.ModelName == "" {
		st.ModelName = st.Model
	}
	st.ContextUsedPercent = contextUsed(root.Get("context_window"))
	rl := root.Get("rate_limits")
	for _, w := range []struct {
		key     string
		minutes int
	}{{"five_hour", 300}, {"seven_day", 10080}} {
		win := rl.Get(w.key)
		used := win.Get("used_percentage")
		if !win.IsObject() || used.Type != gjson.Number {
			continue
		}
		if s, ok := burn.NewSample(burn.Claude, burn.SourceStatusline, now, used.Float(), 0, w.minutes, instant(win.Get("resets_at"))); ok {
			st.Samples = append(st.Samples, s)
		}
	}
	return st, nil
}

// contextUsed is the context window's used percent: the one Claude Code
// states, else the current usage over the window's size (older builds
// carry only those); 0 when neither is there or they make no sense.
func contextUsed(cw gjson.Result) float64 {
	if u := cw.Get("used_percentage"); u.Type == gjson.Number {
		return percentOrZero(u.Float())
	}
	size := cw.Get("context_window_size").Float()
	cur := cw.Get("current_usage")
	if !(size > 0) || !cur.IsObject() {
		return 0
	}
	used := cur.Get("input_tokens").Float() + cur.Get("cache_creation_input_tokens").Float() + cur.Get("cache_read_input_tokens").Float()
	return percentOrZero(100 * used / size)
}

func percentOrZero(x float64) float64 {
	if !(x >= 0) || x > 1000 {
		return 0 // NaN, negative or absurd: not a figure to show
	}
	return min(x, 100)
}

// str is a string field, or "" when it is absent or another type.
func str(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	return ""
}

// StatuslineSetting finds the statusLine command Claude Code runs: the
// first of configDirs whose settings.json sets one. settings is that file,
// or the first folder's settings.json when none does (where one would go).
func StatuslineSetting(configDirs []string) (settings, command string) {
	for _, dir := range configDirs {
		path := filepath.Join(dir, "settings.json")
		if settings == "" {
			settings = path
		}
		b, err := readRegular(path, 1<<20)
		if err != nil || !jsonsafe.Valid(b) {
			continue
		}
		if cmd := gjson.GetBytes(b, "statusLine.command").String(); cmd != "" {
			return path, cmd
		}
	}
	return settings, ""
}

// ObservedAt times st's samples by when the session's newest response was
// written (at, no later than now). Claude Code puts the rate_limits of the
// session's last API response on every statusline call (at start-up, when
// a prompt is submitted, on refresh), so an idle session's reading is as
// old as its last reply, however late it is printed.
func (st Statusline) ObservedAt(at, now time.Time) Statusline {
	if len(st.Samples) == 0 || at.IsZero() {
		return st
	}
	at = at.UTC()
	if at.After(now) {
		at = now
	}
	st.Samples = slices.Clone(st.Samples)
	for i := range st.Samples {
		st.Samples[i].ObservedAt = at
	}
	return st
}
