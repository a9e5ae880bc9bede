package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The scanner finds offsets in a document strictJSON accepted, with
// encoding/json's tokenizer: a value's raw bytes end where the decoder is.

// object is a JSON object's opening brace and members, as offsets into the body.
type object struct {
	open    int
	members []member
}

// member is [keyStart, keyEnd) the quoted key, [valStart, valEnd) the value.
type member struct {
	keyStart, keyEnd, valStart, valEnd int
	key                                string
}

var errScan = errors.New("settings.json could not be read as JSON")

func parseObject(b []byte, i int) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(b[i:]))
	at := func() int { return i + int(dec.InputOffset()) }
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errScan
	}
	o := &object{open: i}
	for dec.More() {
		// More leaves the decoder at the comma before the key, or at the key.
		ks := skipSpace(b, at())
		if ks < len(b) && b[ks] == ',' {
			ks = skipSpace(b, ks+1)
		}
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			return nil, errScan
		}
		ke := at()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errScan
		}
		o.members = append(o.members, member{keyStart: ks, keyEnd: ke, valStart: at() - len(v), valEnd: at(), key: key})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, errScan
	}
	return o, nil
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
