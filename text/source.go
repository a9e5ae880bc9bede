package text

import (
	"time"

	"github.com/agentrunway/runway/quota"
)

// SourceWarning is the one line a surface shows for a source that needs a look,
// cause first so a cut menu row still says it ("Codex login expired — run
// `codex login`", "Codex usage service busy (429), retrying at 21:40"); ""
// when it needs none. Times are shown in loc as of now.
func SourceWarning(s quota.SourceState, now time.Time, loc *time.Location) string {
	if !s.NeedsLook() {
		return ""
	}
	w := s.Cause
	if w == "" {
		w = s.Name + ": " + string(s.State)
		if s.Detail != "" {
			w += ": " + s.Detail
		}
	}
	if (s.State == quota.StateBackoff || s.State == quota.StateError) && s.NextTry.After(now) {
		w += ", retrying at " + Clock(s.NextTry, now, loc)
	}
	if s.Fix != "" {
		w += " — " + s.Fix
	}
	return w
}
