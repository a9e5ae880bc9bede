package quota

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// nameLogin is the Claude Code login's state, as Login reports it.
const nameLogin = "claude-login"

// Login says whether a Claude Code login is there and valid, calling nothing
// (macOS may read the Keychain item once).
func (c *ClaudeSources) Login(ctx context.Context) SourceState {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	st := SourceState{Name: nameLogin}
	cr, err := c.readCredentials(ctx, now, false)
	switch {
	case errors.Is(err, errNoCredentials):
		st.State, st.Detail = StateMissing, "no Claude Code login found (.credentials.json or Keychain)"
		st.Fix = "log in with Claude Code (run `claude`, then /login); without it only local sources give Claude's percent"
	case err != nil:
		st.State, st.Detail = StateError, scrub(err.Error(), cr.token)
	case !cr.expiresAt.IsZero() && !now.Before(cr.expiresAt):
		st.State = StateLoggedOut
		st.Detail = fmt.Sprintf("token %s in %s expired %s ago", cr.id, cr.where, now.Sub(cr.expiresAt).Round(time.Minute))
		st.Fix = fixLogin
	default:
		st.State = StateOK
		st.Detail = fmt.Sprintf("token %s in %s", cr.id, cr.where)
		if !cr.expiresAt.IsZero() {
			st.Detail += fmt.Sprintf(", expires in %s", cr.expiresAt.Sub(now).Round(time.Minute))
		}
	}
	return st
}
