package quota

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
)

// Statusline is what runway takes from Claude Code's statusLine stdin
// (docs/formats.md, "Statusline stdin").
type Statusline struct {
	SessionID          string
	TranscriptPath     string
	Cwd                string
	Model              string        // the model id, else its display name
	ModelName          string        // the model's display name, else its id
	ContextUsedPercent float64       // how full the context window is; 0 when not said
	Version            string        // Claude Code's version
	Samples            []burn.Sample // rate_limits, observed now; none on API-key logins or before the first reply
	// Damaged: a window's used_percentage was not a number in
	// 0–burn.MaxUsedPercent (skipped): its newest reading is unreadable.
	Damaged bool
}

var errNotJSON = errors.New("quota: statusline input is not a JSON object")

// ParseStatusline reads the statusline stdin; every field is optional.
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
	keys := [2]string{"five_hour", "seven_day"}
	st.Samples = windowSamples(root.Get("rate_limits"), keys, "used_percentage", "resets_at", burn.Claude, burn.SourceStatusline, now)
	given := 0
	for _, k := range keys {
		// Any value but null was meant as a percent: a string is damage too.
		if u := root.Get("rate_limits." + k + ".used_percentage"); u.Exists() && u.Type != gjson.Null {
			given++
		}
	}
	st.Damaged = given > len(st.Samples)
	return st, nil
}

// contextUsed is the percent Claude Code states, else (older builds) the
// current usage over the window's size; 0 when neither makes sense.
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

// str is a string field, or "" when absent or of another type.
func str(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	return ""
}

// StatuslineSetting is the first statusLine command set in configDirs'
// settings.json, and that file (else the first folder's, where one would go).
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

// ObservedAt times st's samples by the session's newest response (at, no
// later than now): every statusline call repeats the last reply's rate_limits.
func (st Statusline) ObservedAt(at, now time.Time) Statusline {
	if len(st.Samples) == 0 || at.IsZero() {
		return st
	}
	if at.After(now) {
		at = now
	}
	st.Samples = observedAt(st.Samples, at)
	return st
}
