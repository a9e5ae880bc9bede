package runway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
	"github.com/agentrunway/runway/text"
)

// StatuslineData serves Claude Code's statusLine command: it records
// stdin's account windows and returns what that session's line shows, from
// a fresh snapshot or the logs, never the network (it runs after every
// message).
func (e Env) StatuslineData(ctx context.Context, stdin []byte, now time.Time) (text.StatuslineData, error) {
	// Input that is not Claude Code's JSON still gets the account's line;
	// empty input (a test run by hand) is not worth a warning.
	st, parseErr := quota.ParseStatusline(stdin, now)
	if len(bytes.TrimSpace(stdin)) == 0 {
		parseErr = nil
	}
	var recordErr error
	if len(st.Samples) > 0 {
		if at, ok := tail.LastResponse(st.TranscriptPath); ok {
			st = st.ObservedAt(at, now) // its percent is as old as the session's last reply
		}
		account := e.accountOf(st.TranscriptPath)
		for i := range st.Samples {
			st.Samples[i].Account = account
		}
		log, err := quota.OpenLog(e.StateDir)
		if err == nil {
			_, err = log.Record(now, st.Samples)
		}
		if err != nil {
			recordErr = fmt.Errorf("record the account sample: %w (see runway doctor)", err)
		}
	}
	snap, ok := e.LatestSnapshot(now)
	fromTray := ok
	if !ok {
		snap, ok = e.reusableStatusline(now, st.TranscriptPath)
	}
	if !ok || !shows(snap, st.Samples) {
		snap = e.Evaluate(ctx, EvalOptions{Now: func() time.Time { return now }, Samples: st.Samples}).Snapshot
		if !fromTray {
			// A cache: a call that cannot keep it computes as before.
			_ = e.writeSnapshot(statuslineSnapshotName, snap)
		}
	}
	var damaged error
	if st.Damaged {
		// The line Claude Code shows is where a person sees it: "?", not the older figure's ☺.
		what := fmt.Sprintf("Claude Code's newest percent (a used_percentage that is no number in 0–%d on the statusline's stdin)", burn.MaxUsedPercent)
		snap.Unread = append(slices.Clone(snap.Unread), what)
		damaged = errors.New("skipped " + what)
	}
	d := newStatuslineData(snap, st)
	d.Login = e.accountOf(st.TranscriptPath)
	return d, errors.Join(parseErr, recordErr, damaged)
}

// statuslineReuse is how long one statusline call's snapshot answers the
// next ones without an engine: another session's reply shows at most this
// late; the caller's own never (reusableStatusline, shows).
const statuslineReuse = 5 * time.Second

// reusableStatusline is an earlier call's snapshot, unless the transcript
// was written since.
func (e Env) reusableStatusline(now time.Time, transcript string) (burn.Snapshot, bool) {
	snap, ok := e.readSnapshot(statuslineSnapshotName, now, statuslineReuse)
	if !ok {
		return burn.Snapshot{}, false
	}
	if transcript != "" {
		fi, err := os.Stat(transcript)
		if err == nil && !fi.ModTime().Before(snap.At) {
			return burn.Snapshot{}, false
		}
	}
	return snap, true
}

// shows says whether s already has what samples say: the statusline must
// not print an older percent than the one Claude Code just gave it.
func shows(s burn.Snapshot, samples []burn.Sample) bool {
	for _, x := range samples {
		p := s.ProviderOf(x.Provider, x.Account)
		if p == nil {
			return false
		}
		w := p.Window
		if x.Window == burn.Weekly {
			w = p.Weekly
		}
		// An older reading (an idle session's) is shown by a higher one.
		if w == nil || w.Class != x.Window || w.UsedPercent < x.UsedPercent {
			return false
		}
	}
	return true
}

func newStatuslineData(s burn.Snapshot, st quota.Statusline) text.StatuslineData {
	// Text from stdin is printed: printable, like everything read from a file.
	d := text.StatuslineData{Snapshot: s, SessionID: printable.String(st.SessionID), Model: printable.String(st.ModelName),
		ModelID: printable.String(st.Model), ContextUsedPercent: st.ContextUsedPercent, Cwd: printable.String(st.Cwd)}
	for i := range s.Sessions {
		if x := &s.Sessions[i]; x.Provider == burn.Claude && x.ID == st.SessionID && st.SessionID != "" {
			d.This = x
		}
	}
	return d
}
