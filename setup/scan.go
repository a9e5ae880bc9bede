package setup

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The scanner finds offsets in a document strictJSON accepted; it still
// checks every bound, so a mistake is an error, never a panic.

// object is a JSON object's braces and members, as offsets into the body.
type object struct {
	open, close int
	members     []member
}

// member is [keyStart, keyEnd) the quoted key, [valStart, valEnd) the value.
type member struct {
	keyStart, keyEnd, valStart, valEnd int
	key                                string
}

var errScan = errors.New("settings.json could not be read as JSON")

func parseObject(b []byte, i int) (*object, error) {
	if i >= len(b) || b[i] != '{' {
		return nil, errScan
	}
	o := &object{open: i}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		o.close = i
		return o, nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return nil, errScan
		}
		ks, ke := i, stringEnd(b, i)
		if ke < 0 {
			return nil, errScan
		}
		var key string
		if err := json.Unmarshal(b[ks:ke], &key); err != nil {
			return nil, errScan
		}
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return nil, errScan
		}
		vs := skipSpace(b, i+1)
		ve := skipValue(b, vs)
		if ve < 0 {
			return nil, errScan
		}
		o.members = append(o.members, member{keyStart: ks, keyEnd: ke, valStart: vs, valEnd: ve, key: key})
		i = skipSpace(b, ve)
		if i >= len(b) {
			break
		}
		switch b[i] {
		case '}':
			o.close = i
			return o, nil
		case ',':
			i = skipSpace(b, i+1)
		default:
			return nil, errScan
		}
	}
	return nil, errScan
}

// only is the member named key, or nil; a key given twice is refused, as
// which counts is the reader's choice.
func (o *object) only(b []byte, key string) (*member, error) {
	var found *member
	n := 0
	for i := range o.members {
		if o.members[i].key == key {
			found, n = &o.members[i], n+1
		}
	}
	if n > 1 {
		return nil, fmt.Errorf("%s appears %d times: Claude Code uses the last one, runway will not guess; keep one, then run setup again", key, n)
	}
	return found, nil
}

// insert adds key: a statusLine running command as the last member, spaced
// as the first is from the brace, so remove takes exactly those bytes out.
func (o *object) insert(b []byte, key, command string) []byte {
	if len(o.members) == 0 {
		return splice(b, o.open+1, o.open+1, jsonString(key)+": "+statusLineValue(command, true))
	}
	sep := string(b[o.open+1 : o.members[0].keyStart])
	last := o.members[len(o.members)-1]
	if sep == "" {
		return splice(b, last.valEnd, last.valEnd, ","+jsonString(key)+":"+statusLineValue(command, false))
	}
	return splice(b, last.valEnd, last.valEnd, ","+sep+jsonString(key)+": "+statusLineValue(command, true))
}

// remove takes member m out with one of the commas around it.
func (o *object) remove(b []byte, m *member) []byte {
	idx := -1
	for i := range o.members {
		if &o.members[i] == m {
			idx = i
		}
	}
	switch {
	case idx < 0:
		return b
	case len(o.members) == 1:
		return splice(b, o.open+1, m.valEnd, "")
	case idx > 0:
		return splice(b, o.members[idx-1].valEnd, m.valEnd, "")
	}
	return splice(b, m.keyStart, o.members[1].keyStart, "")
}

func (m *member) str(b []byte) (string, bool) {
	if m.valStart >= len(b) || b[m.valStart] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(b[m.valStart:m.valEnd], &s); err != nil {
		return "", false
	}
	return s, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd is the offset past the string at b[i], -1 when it does not end.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue is the offset past the value at b[i], -1 when it does not end;
// nesting is counted, not recursed into.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = stringEnd(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
		j++
	}
	return j
}
