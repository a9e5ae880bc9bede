package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Edits are textual: only statusLine (or its command) changes, so every other
// byte of the user's file stays and --undo can put back exactly what was there.

// Outcome is what an edit does to one settings.json.
type Outcome int

const (
	Unchanged Outcome = iota // already as asked (for Remove: runway is not in it)
	Added                    // statusLine was absent (or null) and now runs runway
	Chained                  // the user's statusline now runs after runway's, via --then
	Removed                  // runway's statusLine was taken out
	Unchained                // runway's --then wrapper was taken off the user's command
)

// bom is the UTF-8 byte order mark some Windows editors put first: kept.
var bom = []byte("\xef\xbb\xbf")

// freshSettings is the settings.json for no file, or one of white space.
func freshSettings(command string) []byte {
	return []byte("{\n  \"statusLine\": " + statusLineValue(command, true) + "\n}\n")
}

// statusLineValue is the statusLine object setup adds, spaced or compact as
// the file around it.
func statusLineValue(command string, spaced bool) string {
	if spaced {
		return `{"type": "command", "command": ` + jsonString(command) + `}`
	}
	return `{"type":"command","command":` + jsonString(command) + `}`
}

// Apply makes settings' statusLine run program's statusline: added, chained
// in front of the user's command (its other fields kept), or unchanged. old
// is the command there was; settings Claude Code would not read are refused.
func Apply(settings []byte, program string) (out []byte, o Outcome, old string, err error) {
	bare := program + " statusline"
	head, body := splitBOM(settings)
	if len(bytes.TrimSpace(body)) == 0 {
		return freshSettings(bare), Added, "", nil
	}
	root, err := parseRoot(body)
	if err != nil {
		return nil, Unchanged, "", err
	}
	sl, err := root.only(body, "statusLine")
	if err != nil {
		return nil, Unchanged, "", err
	}
	if sl == nil {
		return join(head, root.insert(body, "statusLine", bare)), Added, "", nil
	}
	switch body[sl.valStart] {
	case 'n': // null: no statusline
		return join(head, splice(body, sl.valStart, sl.valEnd, statusLineValue(bare, true))), Added, "", nil
	case '{':
	default:
		return nil, Unchanged, "", fmt.Errorf("statusLine is %s, not an object like {\"type\": \"command\", \"command\": \"…\"}: Claude Code does not run it; fix or remove it, then run setup again", kind(body[sl.valStart]))
	}
	_, cmd, err := statusCommand(body, sl)
	if err != nil {
		return nil, Unchanged, "", err
	}
	old, _ = cmd.str(body)
	if isRunway(old, program) {
		return settings, Unchanged, old, nil
	}
	next, o := bare+" --then "+shellQuote(old), Chained
	if strings.TrimSpace(old) == "" {
		next, o = bare, Added
	}
	return join(head, splice(body, cmd.valStart, cmd.valEnd, jsonString(next))), o, old, nil
}

// Remove takes runway (runway*, or program) out of settings' statusLine, for
// --undo without a backup: setup's statusLine goes (its command emptied when
// it has other members), a chained command gets back the user's own. A
// command setup did not write is left, with the reason when it is runway's.
func Remove(settings []byte, program string) (out []byte, o Outcome, err error) {
	head, body := splitBOM(settings)
	if len(bytes.TrimSpace(body)) == 0 {
		return settings, Unchanged, nil
	}
	root, sl, inner, cmd, err := findCommand(body)
	if root == nil {
		return nil, Unchanged, err
	}
	if cmd == nil {
		return settings, Unchanged, err
	}
	command, _ := cmd.str(body)
	_, old, chained, ours := parseOurs(command, program)
	switch {
	case !isRunway(command, program):
		return settings, Unchanged, nil
	case !ours:
		return settings, Unchanged, fmt.Errorf("statusLine runs %q, not the command runway setup writes: left as it is; edit it by hand", command)
	case chained:
		return join(head, splice(body, cmd.valStart, cmd.valEnd, jsonString(old))), Unchained, nil
	}
	for _, m := range inner.members {
		if m.key != "type" && m.key != "command" {
			return join(head, splice(body, cmd.valStart, cmd.valEnd, `""`)), Removed, nil
		}
	}
	return join(head, root.remove(body, sl)), Removed, nil
}

// Command is settings' statusLine command, "" when none can be read.
func Command(settings []byte) string {
	_, body := splitBOM(settings)
	if _, _, _, cmd, _ := findCommand(body); cmd != nil {
		s, _ := cmd.str(body)
		return s
	}
	return ""
}

// findCommand finds body's root, its statusLine member, that object and
// its command: root is nil for a body that is not an object Claude Code
// reads, cmd nil when there is no command to read (err when the reason is
// body's).
func findCommand(body []byte) (root *object, sl *member, inner *object, cmd *member, err error) {
	if root, err = parseRoot(body); err != nil {
		return nil, nil, nil, nil, err
	}
	if sl, err = root.only(body, "statusLine"); err != nil || sl == nil || body[sl.valStart] != '{' {
		return root, nil, nil, nil, err
	}
	inner, cmd, _ = statusCommand(body, sl)
	return root, sl, inner, cmd, nil
}

// statusCommand is the statusLine object sl and its command, a string.
func statusCommand(body []byte, sl *member) (*object, *member, error) {
	inner, err := parseObject(body, sl.valStart)
	if err != nil {
		return nil, nil, err
	}
	if t, err := inner.only(body, "type"); err != nil {
		return nil, nil, fmt.Errorf("statusLine.%w", err)
	} else if t != nil {
		if s, ok := t.str(body); !ok || s != "command" {
			return nil, nil, fmt.Errorf("statusLine's type is %s, not \"command\": runway can only chain a command; fix it, then run setup again", body[t.valStart:t.valEnd])
		}
	}
	cmd, err := inner.only(body, "command")
	if err != nil {
		return nil, nil, fmt.Errorf("statusLine.%w", err)
	}
	if cmd == nil {
		return nil, nil, errors.New("statusLine has no command: Claude Code runs nothing; remove statusLine or give it a command, then run setup again")
	}
	if _, ok := cmd.str(body); !ok {
		return nil, nil, fmt.Errorf("statusLine's command is %s, not a string: fix it, then run setup again", kind(body[cmd.valStart]))
	}
	return inner, cmd, nil
}

func splitBOM(b []byte) (head, body []byte) {
	if bytes.HasPrefix(b, bom) {
		return b[:len(bom)], b[len(bom):]
	}
	return nil, b
}

func join(head, body []byte) []byte {
	return append(append([]byte{}, head...), body...)
}

func splice(b []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(b)-(to-from)+len(with))
	out = append(out, b[:from]...)
	out = append(out, with...)
	return append(out, b[to:]...)
}

// jsonString is s as JSON with & < > as themselves: commands are full of &&.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

func kind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// parseRoot checks body is an object Claude Code reads (strict JSON) and
// finds its members.
func parseRoot(body []byte) (*object, error) {
	if err := strictJSON(body); err != nil {
		return nil, err
	}
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return nil, fmt.Errorf("it holds %s, not an object: Claude Code ignores it; make it {} or remove it, then run setup again", kind(body[i]))
	}
	return parseObject(body, i)
}

// strictJSON says why and where body is not JSON, in the user's words.
func strictJSON(body []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(&v)
	if err == nil {
		if len(bytes.TrimSpace(body[dec.InputOffset():])) == 0 {
			return nil
		}
		err = errors.New("more than one JSON value")
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return errors.New("it is not valid JSON (it ends early): Claude Code ignores the whole file; fix it, then run setup again")
		}
		return fmt.Errorf("it is not valid JSON (%v): Claude Code ignores the whole file; fix it, then run setup again", err)
	}
	at := min(max(int(se.Offset)-1, 0), len(body))
	line, col := position(body, at)
	if at < len(body) && body[at] == '/' {
		return fmt.Errorf("line %d, column %d: a comment; Claude Code reads settings.json as strict JSON and ignores the whole file when it has one (\"Invalid or malformed JSON\"): remove the comment, then run setup again", line, col)
	}
	if p := prevNonSpace(body, at); p >= 0 && body[p] == ',' && at < len(body) && (body[at] == '}' || body[at] == ']') {
		l, c := position(body, p)
		return fmt.Errorf("line %d, column %d: a comma before a closing bracket; Claude Code reads settings.json as strict JSON and ignores the whole file: remove the comma, then run setup again", l, c)
	}
	return fmt.Errorf("line %d, column %d: not valid JSON (%v); Claude Code ignores the whole file: fix it, then run setup again", line, col, se)
}

func position(b []byte, at int) (line, col int) {
	line = 1 + bytes.Count(b[:at], []byte("\n"))
	col = at - bytes.LastIndexByte(b[:at], '\n')
	return line, col
}

func prevNonSpace(b []byte, at int) int {
	for i := at - 1; i >= 0; i-- {
		if !isSpace(b[i]) {
			return i
		}
	}
	return -1
}
