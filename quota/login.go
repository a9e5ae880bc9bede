package quota

import (
	"context"
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
	cr, err := c.readCredentials(ctx, now, false)
	if o, stop := usable(cr, err, now, ""); stop {
		return SourceState{Name: nameLogin, State: o.state, Detail: scrub(o.detail, cr.token), Fix: o.fix}
	}
	st := SourceState{Name: nameLogin, State: StateOK, Detail: fmt.Sprintf("token %s in %s", cr.id, cr.where)}
	if !cr.expiresAt.IsZero() {
		st.Detail += fmt.Sprintf(", expires in %s", cr.expiresAt.Sub(now).Round(time.Minute))
	}
	return st
}
