package setup

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// shapes are settings.json files as people have them: written by Claude
// Code (two-space JSON), by hand, by other tools.
var shapes = map[string]string{
	"empty":       "",
	"blank":       " \n",
	"braces":      "{}",
	"braces-nl":   "{}\n",
	"spaced-open": "{\n}\n",
	"claude-code": `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Read(~/.zshrc)"
    ],
    "deny": [
      "Read(./.env)"
    ],
    "defaultMode": "acceptEdits"
  },
  "env": {
    "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
    "OTEL_METRICS_EXPORTER": "otlp"
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "jq -r '.tool_input.file_path' | xargs prettier --write"
          }
        ]
      }
    ]
  },
  "alwaysThinkingEnabled": true,
  "cleanupPeriodDays": 30
}
`,
	"statusline": `{
  "model": "sonnet",
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh",
    "padding": 0
  },
  "feedbackSurveyState": {
    "lastShownTime": 1754000000000
  }
}
`,
	"statusline-quotes": `{"statusLine":{"type":"command","command":"bash -c 'input=$(cat); echo \"$(echo \"$input\" | jq -r .model.display_name) it's \\\\ ok\" && date'"},"model":"opus"}`,
	"statusline-first": `{
	"statusLine": {"command": "npx -y ccstatusline@latest", "type": "command", "padding": 2},
	"includeCoAuthoredBy": false
}`,
	"statusline-null":  `{"statusLine": null, "model": "haiku"}`,
	"statusline-empty": `{"statusLine": {"type": "command", "command": ""}}`,
	"empty-padded":     `{"statusLine": {"type": "command", "command": "", "padding": 1}}`,
	"one-line":         `{"model":"opus","env":{"A":"1"}}`,
	"one-line-spaced":  `{ "model" : "opus" , "env" : { "A" : "1" } }`,
	"crlf-tabs":        "{\r\n\t\"permissions\": {\"allow\": []},\r\n\t\"hooks\": {}\r\n}\r\n",
	"escapes":          `{"model": "op\u0075s", "env": {"PATH_NOTE": "a\\b \"c\" \u00e9 \ud83d\ude80"}, "num": 1.5e3, "neg": -0, "arr": [[], {}, [{"x": [null, true, false]}]]}`,
	"escaped-key":      `{"status\u004cine": {"type": "command", "command": "echo hi"}}`,
	"bom":              "\xef\xbb\xbf{\n  \"model\": \"opus\"\n}\n",
	"no-final-newline": "{\n  \"model\": \"opus\"\n}",
	"unicode":          "{\n  \"env\": {\"GREETING\": \"grüß dich — 你好\"}\n}\n",
}

// writeShape makes dir/settings.json hold s ("<none>": no file).
func writeShape(t *testing.T, dir, s string) {
	t.Helper()
	if s == "<none>" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSetupThenUndoIsByteIdentical(t *testing.T) {
	all := map[string]string{"none": "<none>"}
	for k, v := range shapes {
		all[k] = v
	}
	for name, shape := range all {
		for _, program := range []string{"runway", "'/opt/my apps/runway'", "/opt/bin/rw"} {
			t.Run(name+"/"+program, func(t *testing.T) {
				dir := t.TempDir()
				writeShape(t, dir, shape)
				path := filepath.Join(dir, "settings.json")

				c := Plan(dir, program)
				if c.Err != nil || c.Action == Keep {
					t.Fatalf("plan: %+v", c)
				}
				if err := c.Do(); err != nil {
					t.Fatal(err)
				}
				after, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				checkApplied(t, []byte(strings.TrimPrefix(shape, "<none>")), after, program)

				// Idempotent: a second run has nothing to do.
				again := Plan(dir, program)
				if again.Action != Keep || again.Err != nil || again.Outcome != Unchanged {
					t.Fatalf("second run: %+v", again)
				}

				u := PlanUndo(dir, program)
				if u.Err != nil || u.Action == Keep {
					t.Fatalf("undo plan: %+v", u)
				}
				if err := u.Do(); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if shape == "<none>" {
					if !errors.Is(err, os.ErrNotExist) {
						t.Fatalf("undo left %q where there was no file (%v)", got, err)
					}
				} else if string(got) != shape {
					t.Fatalf("undo gave\n%s\nwant\n%s", got, shape)
				}
				if _, err := os.Stat(path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("backup left after undo: %v", err)
				}
				// And undo again: nothing to do.
				if u2 := PlanUndo(dir, program); u2.Action != Keep || u2.Err != nil {
					t.Fatalf("second undo: %+v", u2)
				}
			})
		}
	}
}

// Without the backup, --undo takes runway out again by itself; the
// statusline the user had comes back exactly.
func TestUndoWithoutBackup(t *testing.T) {
	for name, shape := range shapes {
		if strings.TrimSpace(shape) == "" {
			continue // setup replaced it whole: only the backup knows it was blank
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeShape(t, dir, shape)
			if err := Plan(dir, "runway").Do(); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(dir, "settings.json"+BackupSuffix)); err != nil {
				t.Fatal(err)
			}
			u := PlanUndo(dir, "runway")
			if err := u.Do(); err != nil || u.Action == Keep {
				t.Fatalf("undo: %+v %v", u, err)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "settings.json"))
			before := []byte(shape)
			if Command(got) != Command(before) {
				t.Errorf("statusLine command %q, want %q", Command(got), Command(before))
			}
			// Byte-identical, except where setup replaced a value that
			// meant "no statusline" (null, an empty command).
			if string(got) != shape && name != "statusline-null" && name != "statusline-empty" {
				t.Errorf("undo without backup gave\n%s\nwant\n%s", got, shape)
			}
		})
	}
}

func TestChainedCommandRunsTheOldOne(t *testing.T) {
	out, o, old, err := Apply([]byte(shapes["statusline-quotes"]), "runway")
	if err != nil || o != Chained {
		t.Fatalf("%v %v", o, err)
	}
	cmd := Command(out)
	want := `runway statusline --then 'bash -c '\''input=$(cat); echo "$(echo "$input" | jq -r .model.display_name) it'\''s \\ ok" && date'\'''`
	if cmd != want {
		t.Fatalf("command\n%s\nwant\n%s", cmd, want)
	}
	// The shell gives --then back the old command, byte for byte.
	w, ok := shellWords(cmd)
	if !ok || len(w) != 4 || w[3].val != old {
		t.Fatalf("words %q, want the old command %q", w, old)
	}
	if !strings.Contains(string(out), `&& date`) {
		t.Errorf("& escaped in the JSON: %s", out)
	}
	// padding and the other members stay.
	out, _, _, _ = Apply([]byte(shapes["statusline"]), "runway")
	if !strings.Contains(string(out), `"command": "runway statusline --then '~/.claude/statusline.sh'",`+"\n    \"padding\": 0") {
		t.Errorf("padding lost:\n%s", out)
	}
}

func TestRefused(t *testing.T) {
	for name, c := range map[string]struct{ in, why string }{
		"comment":         {"{\n  // my model\n  \"model\": \"opus\"\n}", "line 2, column 3: a comment"},
		"block comment":   {"{\"model\": \"opus\" /* why */}", "a comment"},
		"trailing comma":  {"{\n  \"model\": \"opus\",\n}", "line 2, column 18: a comma before a closing bracket"},
		"invalid":         {"{\"model\": opus}", "line 1, column 11: not valid JSON"},
		"cut":             {"{\"model\": \"op", "ends early"},
		"two values":      {"{} {}", "more than one JSON value"},
		"array":           {"[]", "holds an array, not an object"},
		"string":          {`"x"`, "holds a string"},
		"twice":           {`{"statusLine": {"type":"command","command":"a"}, "statusLine": {"type":"command","command":"b"}}`, "statusLine appears 2 times"},
		"command twice":   {`{"statusLine": {"type":"command","command":"a","command":"b"}}`, "command appears 2 times"},
		"not object":      {`{"statusLine": "echo hi"}`, "statusLine is a string"},
		"no command":      {`{"statusLine": {"type": "command"}}`, "has no command"},
		"command number":  {`{"statusLine": {"type": "command", "command": 3}}`, "command is a number"},
		"other type":      {`{"statusLine": {"type": "text", "command": "x"}}`, `type is "text"`},
		"deep":            {"{\"a\":" + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}", "not valid JSON"},
		"nul":             {"{\"a\": \"\x00\"}", "not valid JSON"},
		"only a bom, cut": {"\xef\xbb\xbf{", "ends early"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeShape(t, dir, c.in)
			ch := Plan(dir, "runway")
			if ch.Err == nil || !strings.Contains(ch.Err.Error(), c.why) {
				t.Fatalf("err %v, want %q", ch.Err, c.why)
			}
			if err := ch.Do(); err == nil {
				t.Fatal("Do of a refused change did not say why")
			}
			got, _ := os.ReadFile(filepath.Join(dir, "settings.json"))
			if string(got) != c.in {
				t.Fatal("a refused file was written")
			}
			if _, err := os.Stat(filepath.Join(dir, "settings.json"+BackupSuffix)); err == nil {
				t.Fatal("a backup was written for a refused file")
			}
		})
	}
}

func TestReadOnlyIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" || os.Getuid() == 0 {
		t.Skip("permission bits: not on Windows; root writes anyway")
	}
	dir := t.TempDir()
	writeShape(t, dir, shapes["statusline"])
	path := filepath.Join(dir, "settings.json")
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	c := Plan(dir, "runway")
	if c.Err == nil || !strings.Contains(c.Err.Error(), "read-only") {
		t.Fatalf("err %v", c.Err)
	}
	if got, _ := os.ReadFile(path); string(got) != shapes["statusline"] {
		t.Fatal("changed")
	}
}

func TestKeepsTheMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits")
	}
	dir := t.TempDir()
	writeShape(t, dir, "{}")
	path := filepath.Join(dir, "settings.json")
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Plan(dir, "runway").Do(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + BackupSuffix} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: %v %v, want 0640", p, fi.Mode(), err)
		}
	}
}

func TestSymlinkIsRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "dotfiles-settings.json")
	if err := os.WriteFile(target, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "settings.json")); err != nil {
		t.Skip(err)
	}
	c := Plan(dir, "runway")
	if c.Err == nil || !strings.Contains(c.Err.Error(), "symlink to "+target) {
		t.Fatalf("err %v", c.Err)
	}
	if b, _ := os.ReadFile(target); string(b) != "{}" {
		t.Fatal("target changed")
	}
	if fi, _ := os.Lstat(filepath.Join(dir, "settings.json")); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	// --undo has nothing of runway's there: a note, not a failure.
	if u := PlanUndo(dir, "runway"); u.Err != nil || u.Action != Keep || !strings.Contains(u.Note, "symlink") {
		t.Fatalf("undo: %+v", u)
	}
}

// A hand-written runway statusline (with its own flags) is runway's
// already: setup leaves it, and --undo without a backup does not guess.
func TestAlreadyRunway(t *testing.T) {
	for _, cmd := range []string{
		"runway statusline",
		"/home/me/go/bin/runway statusline --format '{{.Model}}'",
		`"C:\Program Files\runway\runway.exe" statusline`,
		"runway statusline --then 'runway statusline'",
	} {
		in := `{"statusLine": {"type": "command", "command": ` + jsonString(cmd) + `}}`
		out, o, old, err := Apply([]byte(in), "runway")
		if err != nil || o != Unchanged || old != cmd || string(out) != in {
			t.Errorf("%s: %v %v %q", cmd, o, err, out)
		}
	}
	in := `{"statusLine": {"type": "command", "command": "runway statusline --format x"}}`
	if _, o, err := Remove([]byte(in), "runway"); o != Unchanged || err == nil {
		t.Errorf("remove of a hand-written runway command: %v %v", o, err)
	}
}

// Claude Code (or the user) changed settings.json after setup: --undo
// takes runway out and keeps that change, and says the backup is left.
func TestUndoAfterTheFileChanged(t *testing.T) {
	dir := t.TempDir()
	writeShape(t, dir, shapes["statusline"])
	if err := Plan(dir, "runway").Do(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "settings.json")
	b, _ := os.ReadFile(path)
	b = []byte(strings.Replace(string(b), `"model": "sonnet"`, `"model": "opus"`, 1))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	u := PlanUndo(dir, "runway")
	if u.Action != Unwrap || !strings.Contains(u.Note, "left at") {
		t.Fatalf("%+v", u)
	}
	if err := u.Do(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := strings.Replace(shapes["statusline"], "sonnet", "opus", 1); string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// A write between the plan and the consent is not lost.
func TestDoChecksTheFileIsAsPlanned(t *testing.T) {
	dir := t.TempDir()
	writeShape(t, dir, "{}")
	c := Plan(dir, "runway")
	writeShape(t, dir, `{"model": "opus"}`)
	if err := c.Do(); !errors.Is(err, ErrChanged) {
		t.Fatalf("err %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "settings.json")); string(got) != `{"model": "opus"}` {
		t.Fatalf("overwritten: %s", got)
	}
}

func TestProgram(t *testing.T) {
	found := func(string) (string, error) { return "/usr/local/bin/runway", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	if p, _, err := Program(found, "/tmp/go-build123/b001/exe/runway"); p != "runway" || err != nil {
		t.Errorf("on PATH: %q %v", p, err)
	}
	if p, why, err := Program(missing, "/opt/my apps/runway"); p != "'/opt/my apps/runway'" || err != nil || !strings.Contains(why, "not on PATH") {
		t.Errorf("not on PATH: %q %v", p, err)
	}
	if p, _, _ := Program(missing, "/home/me/bin/runway"); p != "/home/me/bin/runway" {
		t.Errorf("plain path quoted: %q", p)
	}
	if _, _, err := Program(missing, "/home/me/.cache/go-build/47/47918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d/runway"); err == nil || !strings.Contains(err.Error(), "temporary build") {
		t.Errorf("go run binary accepted: %v", err)
	}
	// A path setup writes is recognised as runway's on the next run.
	for _, exe := range []string{"/opt/my apps/runway", `C:\Users\me\runway.exe`, "/home/me/bin/runway"} {
		if p := programWord(exe); !isRunway(p+" statusline", "runway") {
			t.Errorf("%s: %s not recognised", exe, p)
		}
	}
}

func TestClaudeFolders(t *testing.T) {
	home := t.TempDir()
	mk := func(p string) string {
		p = filepath.Join(home, p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	claude := mk(".claude")
	work := mk(".claude-work/projects")
	mk(".claude-old-copy") // nothing of Claude Code's in it
	xdg := mk(".config/claude")
	custom := mk("elsewhere/claude")
	if err := os.Symlink(claude, filepath.Join(home, ".claude-link")); err != nil {
		t.Skip(err) // no symlinks here (Windows without the privilege)
	}
	if err := os.WriteFile(filepath.Join(claude, "settings.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := ClaudeFolders([]string{custom, xdg, filepath.Join(home, "missing")}, home)
	want := []string{custom, xdg, claude, filepath.Dir(work)}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkApplied is the fuzz target's property: out is JSON, every member
// but statusLine is as it was, statusLine runs runway's statusline (the
// old command after --then), and its other members are kept.
func checkApplied(t testing.TB, in, out []byte, program string) {
	t.Helper()
	_, body := splitBOM(out)
	if err := strictJSON(body); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	root, err := parseRoot(body)
	if err != nil {
		t.Fatal(err)
	}
	inMembers := map[string]string{}
	if _, inBody := splitBOM(in); len(strings.TrimSpace(string(inBody))) > 0 {
		r, err := parseRoot(inBody)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.members {
			inMembers[m.key] += string(inBody[m.valStart:m.valEnd]) + "\x00"
		}
	}
	outMembers := map[string]string{}
	for _, m := range root.members {
		outMembers[m.key] += string(body[m.valStart:m.valEnd]) + "\x00"
	}
	for k, v := range inMembers {
		if k != "statusLine" && outMembers[k] != v {
			t.Fatalf("member %q changed: %q → %q", k, v, outMembers[k])
		}
	}
	for k := range outMembers {
		if _, ok := inMembers[k]; !ok && k != "statusLine" {
			t.Fatalf("member %q appeared", k)
		}
	}
	cmd := Command(out)
	if !strings.HasPrefix(cmd, program+" statusline") || !isRunway(cmd, program) {
		t.Fatalf("statusLine command %q", cmd)
	}
	oldCmd := Command(in)
	if _, old, chained, ours := parseOurs(cmd, program); !ours || (chained && old != oldCmd) || (!chained && strings.TrimSpace(oldCmd) != "" && !isRunway(oldCmd, program)) {
		t.Fatalf("command %q does not keep the old one %q", cmd, oldCmd)
	}
}

// TestProgramSkipsTheNodeLauncher: installed from npm, the runway on PATH
// is a Node launcher whose start costs several times runway's own; the
// statusline command names the system package's binary, which it runs.
func TestProgramSkipsTheNodeLauncher(t *testing.T) {
	prefix := t.TempDir()
	mods := filepath.Join(prefix, "lib", "node_modules", "@agentrunway")
	launcher := filepath.Join(mods, "runway", "bin", "runway.js")
	exe := filepath.Join(mods, "runway-linux-x64", "bin", "runway")
	for _, f := range []string{launcher, exe} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(prefix, "bin", "runway")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(launcher, link); err != nil {
		t.Skip(err) // no symlinks here
	}
	onPath := func(string) (string, error) { return link, nil }
	p, why, err := Program(onPath, exe)
	if err != nil || p != programWord(exe) || !strings.Contains(why, "Node launcher") {
		t.Errorf("npm install: %q (%s) %v, want the binary %s", p, why, err, exe)
	}
	if !isRunway(p+" statusline", "runway") {
		t.Errorf("%s is not known as runway's on the next setup", p)
	}
	// Any other runway on PATH is named by its name.
	other := func(string) (string, error) { return "/usr/local/bin/runway", nil }
	if p, _, _ := Program(other, exe); p != "runway" {
		t.Errorf("a plain runway on PATH: %q", p)
	}
}
