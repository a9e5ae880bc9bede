package runway

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/agentrunway/runway/quota"
)

// ClaudeLogins is each Claude root's login, labelled for a person, so burn
// keeps two logins' windows apart; two roots of one login are one.
func (e Env) ClaudeLogins() []burn.Account {
	var out []burn.Account
	labels := map[string]int{}
	for _, dir := range e.Roots.Claude {
		id := quota.Account(dir, e.Home)
		if id == "" || slices.ContainsFunc(out, func(a burn.Account) bool { return a.ID == id }) {
			continue
		}
		a := burn.Account{Provider: burn.Claude, ID: id, Label: loginLabel(dir, e.Home)}
		labels[a.Label]++
		out = append(out, a)
	}
	for i := range out {
		// Two folders of one name (~/a/.claude, ~/b/.claude): the ids tell them apart.
		if out[i].Label == "" || labels[out[i].Label] > 1 {
			out[i].Label = out[i].ID
		}
	}
	return out
}

// loginLabel names a Claude folder: "work" for ~/.claude-work or
// ~/work/.claude, "default" for ~/.claude; never the account's e-mail,
// as a line is often shared on screen. "" when the name says nothing.
func loginLabel(dir, home string) string {
	dir = filepath.Clean(dir)
	if home != "" && (dir == filepath.Join(home, ".claude") || dir == filepath.Join(home, ".config", "claude")) {
		return "default"
	}
	name := func(base string) string {
		base = strings.ToLower(strings.Trim(base, ".-_ "))
		base = strings.TrimPrefix(strings.TrimSuffix(base, "claude"), "claude")
		return strings.Trim(base, ".-_ ")
	}
	label := name(filepath.Base(dir))
	if label == "" || label == "config" {
		if parent := filepath.Dir(dir); parent != home {
			label = name(filepath.Base(parent))
		}
	}
	label = printable.String(label)
	if r := []rune(label); len(r) > 24 {
		label = string(r[:24])
	}
	if label == "" || strings.ContainsAny(label, "/\\") {
		return ""
	}
	return label
}

// claudeLoginOf is tail.Options.Account: the login of a Claude root.
func (e Env) claudeLoginOf() func(string) string {
	return func(root string) string { return quota.Account(root, e.Home) }
}

// ClaudeLogin is Claude Code's login as of at, read locally (runway doctor).
func (e Env) ClaudeLogin(ctx context.Context, at time.Time) quota.SourceState {
	return e.claudeSources(false, func() time.Time { return at }).Login(ctx)
}

// accountOf is the login of the config folder the transcript is in (of the
// only folder when there is one), "" when that cannot be told.
func (e Env) accountOf(transcript string) string {
	for _, dir := range e.Roots.Claude {
		if transcript != "" && strings.HasPrefix(filepath.Clean(transcript), filepath.Clean(dir)+string(filepath.Separator)) {
			return quota.Account(dir, e.Home)
		}
	}
	if len(e.Roots.Claude) == 1 {
		return quota.Account(e.Roots.Claude[0], e.Home)
	}
	return ""
}
