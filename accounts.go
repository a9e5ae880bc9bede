package runway

import (
	"path/filepath"
	"strings"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/agentrunway/runway/quota"
)

// claudeLogins is the login of each Claude root (its .claude.json's account,
// as a fingerprint) labelled for a person: what burn needs to keep the
// windows of Claude Code run under two logins apart (burn.Input.Accounts).
// Roots without a login are left out; two roots of one login are one.
func (e Env) claudeLogins(l *quota.Logins) []burn.Account {
	var out []burn.Account
	labels := map[string]int{}
	for _, dir := range e.Roots.Claude {
		id := l.Account(dir, e.Home)
		if id == "" || containsLogin(out, id) {
			continue
		}
		a := burn.Account{Provider: burn.Claude, ID: id, Label: loginLabel(dir, e.Home)}
		labels[a.Label]++
		out = append(out, a)
	}
	for i := range out {
		// Two folders of one name (~/a/.claude, ~/b/.claude): the
		// fingerprints tell them apart.
		if out[i].Label == "" || labels[out[i].Label] > 1 {
			out[i].Label = out[i].ID
		}
	}
	return out
}

func containsLogin(as []burn.Account, id string) bool {
	for _, a := range as {
		if a.ID == id {
			return true
		}
	}
	return false
}

// loginLabel names a Claude config folder for a person: "work" for
// ~/.claude-work or ~/work/.claude, "default" for ~/.claude. Never the
// account's e-mail or organisation (.claude.json has both): a line is often
// shared on screen. "" when the folder's name says nothing.
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
func (e Env) claudeLoginOf(l *quota.Logins) func(string) string {
	return func(root string) string { return l.Account(root, e.Home) }
}

// ClaudeLogins is the login of each Claude folder, labelled as every
// surface names it (claudeLogins); doctor lists them when there are
// several.
func (e Env) ClaudeLogins() []burn.Account {
	var l quota.Logins
	return e.claudeLogins(&l)
}
