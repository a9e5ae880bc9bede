package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Edits of settings.json are textual: only the statusLine member (or its
// command) changes, so every other byte of the user's file stays as it was
// and --undo can put back exactly what was there.

// Outcome is what an edit does to one settings.json.
type Outcome int

const (
	// Unchanged: the file already does what was asked (or, for Remove,
	// runway is not in it).
	Unchanged Outcome = iota
	// Added: statusLine was absent (or null) and now runs runway.
	Added
	// Chained: the statusline the user had now runs after runway's, via --then.
	Chained
	// Removed: runway's statusLine member was taken out (Remove).
	Removed
	// Unchained: runway's --then wrapper was taken off the user's command (Remove).
	Unchained
)

// bom is the UTF-8 byte order mark some Windows editors put first; it is
// kept as it was, and the JSON after it is what is read.
var bom = []byte("\xef\xbb\xbf")

// freshSettings is the settings.json setup creates where there was none, or
// where the file held only white space.
func freshSettings(command string) []byte {
	return []byte("{\n  \"statusLine\": " + statusLineValue(command, true) + "\n}\n")
}

// statusLineValue is the statusLine object setup adds, spaced as the file
// around it is (spaced) or compact.
func statusLineValue(command string, spaced bool) string {
	if spaced {
		return `{"type": "command", "command": ` + jsonString(command) + `}`
	}
	return `{"type":"command","command":` + jsonString(command) + `}`
}

// Apply returns settings with statusLine running program's statusline: added
// when absent, chained in front of the user's command when there is one
// (its other fields, such as padding, kept), unchanged when it already runs
// runway statusline. old is the command that was there ("" when none).
// settings that Claude Code would not read (comments, trailing commas,
// invalid JSON, not an object) are refused with the reason.
func Apply(settings []byte, program string) (out []byte, o Outcome, old string, err error) {
	bare := program + " statusline"
	head, body := splitBOM(settings)
	if len(bytes.TrimSpace(body)) == 0 {
		// Empty: as if there were no file; the backup keeps the bytes.
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
	cmd, err := statusCommand(body, sl)
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

// Remove takes runway (named runway*, or program) out of settings'
// statusLine, the fallback of --undo when the backup is gone: a statusLine
// setup added is removed (its command emptied when it has other members),
// a chained command gets back the user's own. A command setup did not
// write (runway with other flags, or not runway) is left, with the reason
// in err when it is runway's.
func Remove(settings []byte, program string) (out []byte, o Outcome, err error) {
	head, body := splitBOM(settings)
	if len(bytes.TrimSpace(body)) == 0 {
		return settings, Unchanged, nil
	}
	root, err := parseRoot(body)
	if err != nil {
		return nil, Unchanged, err
	}
	sl, err := root.only(body, "statusLine")
	if err != nil || sl == nil || body[sl.valStart] != '{' {
		return settings, Unchanged, err
	}
	cmd, err := statusCommand(body, sl)
	if err != nil {
		return settings, Unchanged, nil
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
	inner, err := parseObject(body, sl.valStart)
	if err != nil {
		return nil, Unchanged, err
	}
	for _, m := range inner.members {
		if m.key != "type" && m.key != "command" {
			// Setup filled in an empty command and kept the rest (padding).
			return join(head, splice(body, cmd.valStart, cmd.valEnd, `""`)), Removed, nil
		}
	}
	return join(head, root.remove(body, sl)), Removed, nil
}

// ProgramOf is the word that names runway (runway*, or self) in a
// statusLine command setup wrote, as written ("runway", or a quoted path);
// ok is false for any other command.
func ProgramOf(settings []byte, self string) (program string, ok bool) {
	_, body := splitBOM(settings)
	root, err := parseRoot(body)
	if err != nil {
		return "", false
	}
	sl, err := root.only(body, "statusLine")
	if err != nil || sl == nil || body[sl.valStart] != '{' {
		return "", false
	}
	cmd, err := statusCommand(body, sl)
	if err != nil {
		return "", false
	}
	command, _ := cmd.str(body)
	program, _, _, ours := parseOurs(command, self)
	return program, ours
}

// Command is settings' statusLine command, "" when none can be read.
func Command(settings []byte) string {
	_, body := splitBOM(settings)
	root, err := parseRoot(body)
	if err != nil {
		return ""
	}
	sl, err := root.only(body, "statusLine")
	if err != nil || sl == nil || body[sl.valStart] != '{' {
		return ""
	}
	cmd, err := statusCommand(body, sl)
	if err != nil {
		return ""
	}
	s, _ := cmd.str(body)
	return s
}

// statusCommand is the command member of the statusLine object sl.
func statusCommand(body []byte, sl *member) (*member, error) {
	inner, err := parseObject(body, sl.valStart)
	if err != nil {
		return nil, err
	}
	if t, err := inner.only(body, "type"); err != nil {
		return nil, fmt.Errorf("statusLine.%w", err)
	} else if t != nil {
		if s, ok := t.str(body); !ok || s != "command" {
			return nil, fmt.Errorf("statusLine's type is %s, not \"command\": runway can only chain a command; fix it, then run setup again", body[t.valStart:t.valEnd])
		}
	}
	cmd, err := inner.only(body, "command")
	if err != nil {
		return nil, fmt.Errorf("statusLine.%w", err)
	}
	if cmd == nil {
		return nil, errors.New("statusLine has no command: Claude Code runs nothing; remove statusLine or give it a command, then run setup again")
	}
	if _, ok := cmd.str(body); !ok {
		return nil, fmt.Errorf("statusLine's command is %s, not a string: fix it, then run setup again", kind(body[cmd.valStart]))
	}
	return cmd, nil
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

// jsonString is s as a JSON string, with & < > as themselves: shell
// commands are full of &&.
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

// parseRoot checks body is JSON Claude Code reads (strict JSON: no comments,
// no trailing commas) holding an object, and finds its members.
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

// strictJSON explains why body is not JSON, where, in the user's words.
func strictJSON(body []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(&v)
	if err == nil {
		if _, terr := dec.Token(); terr == nil {
			err = errors.New("more than one JSON value")
		} else if off := dec.InputOffset(); len(bytes.TrimSpace(body[off:])) > 0 {
			err = errors.New("more than one JSON value")
		} else {
			return nil
		}
		return fmt.Errorf("it is not valid JSON (%v): Claude Code ignores the whole file; fix it, then run setup again", err)
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return errors.New("it is not valid JSON (it ends early): Claude Code ignores the whole file; fix it, then run setup again")
		}
		return fmt.Errorf("it is not valid JSON (%v): Claude Code ignores the whole file; fix it, then run setup again", err)
	}
	at := int(se.Offset) - 1
	if at < 0 {
		at = 0
	}
	if at > len(body) {
		at = len(body)
	}
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
