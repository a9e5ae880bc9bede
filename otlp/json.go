package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The OTLP/JSON mapping (the protobuf JSON mapping with OTLP's changes):
// field names in lowerCamelCase or as in the .proto; 64-bit integers as
// numbers or decimal strings; enums as numbers or names; trace and span
// ids in hex; bytes in base64; null as the field's zero value where the
// reference decoder reads it so; unknown fields ignored.
//
// encoding/json checks the body (json.Valid) and unquotes the strings
// with escapes or non-ASCII bytes in them; the walk over the checked body
// is runway's own, as encoding/json's Decoder.Token allocates for every
// token and builds an error value at the end of every scalar (it was 4×
// slower than the decoder it replaced).

// errEmptyKey: the reference decoder takes a field named "" for the end
// of the object and misreads what follows; runway refuses it.
var errEmptyKey = errors.New("a field with an empty name")

// jsonReader walks a body json.Valid accepted: every token is well
// formed and every bracket closed, so it reads without syntax checks.
type jsonReader struct {
	b   []byte
	pos int
}

func readJSON(body []byte, m *message, s sink) error {
	if !json.Valid(body) {
		var v json.RawMessage
		err := json.Unmarshal(body, &v)
		if err == nil {
			err = errors.New("not valid JSON")
		}
		return err
	}
	r := jsonReader{b: body}
	return r.object(m, s, 0)
}

// peek is the next token's first byte.
func (r *jsonReader) peek() byte {
	for r.pos < len(r.b) {
		switch c := r.b[r.pos]; c {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return c
		}
	}
	return 0
}

// literal passes over the next scalar token (a string, a number, true,
// false or null) and returns it.
func (r *jsonReader) literal() []byte {
	first := r.peek()
	start := r.pos
	if first == '"' {
		r.pos++
		for r.b[r.pos] != '"' {
			if r.b[r.pos] == '\\' {
				r.pos++
			}
			r.pos++
		}
		r.pos++
		return r.b[start:r.pos]
	}
	for r.pos < len(r.b) {
		switch r.b[r.pos] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return r.b[start:r.pos]
		}
		r.pos++
	}
	return r.b[start:r.pos]
}

// skip passes over the next value, whatever it is. A number in it out of
// float64's range refuses the body, as pdata refuses it: what is not read
// cannot change a count, but runway reads a body exactly when pdata does.
func (r *jsonReader) skip() error {
	switch r.peek() {
	case '{', '[':
	default:
		return r.skipLiteral()
	}
	depth := 0
	for {
		switch r.peek() {
		case '{', '[':
			depth++
			r.pos++
		case '}', ']':
			depth--
			r.pos++
			if depth == 0 {
				return nil
			}
		case ',', ':':
			r.pos++
		default:
			if err := r.skipLiteral(); err != nil {
				return err
			}
		}
	}
}

func (r *jsonReader) skipLiteral() error {
	lit := r.literal()
	if c := lit[0]; c == '-' || c >= '0' && c <= '9' {
		if _, err := strconv.ParseFloat(string(lit), 64); err != nil {
			return fmt.Errorf("%s is not a number", lit)
		}
	}
	return nil
}

// unquote is a string literal's text, as encoding/json reads it.
func unquote(lit []byte) string {
	inner := lit[1 : len(lit)-1]
	simple := true
	for _, c := range inner {
		if c == '\\' || c >= utf8.RuneSelf {
			simple = false
			break
		}
	}
	if simple {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(lit, &s) // lit is a valid string literal
	return s
}

// describe names a token in an error.
func describe(lit []byte) string {
	if len(lit) > 40 {
		return string(lit[:40]) + "…"
	}
	return string(lit)
}

// object reads a JSON object (or null) as a message of type m.
func (r *jsonReader) object(m *message, s sink, depth int) error {
	depth, err := m.enter(depth)
	if err != nil {
		return err
	}
	switch r.peek() {
	case '{':
		r.pos++
	case 'n':
		r.literal()
		return nil
	case '[':
		return fmt.Errorf("%s: an array where an object belongs", m.name)
	default:
		return fmt.Errorf("%s: %s where an object belongs", m.name, describe(r.literal()))
	}
	for {
		switch r.peek() {
		case '}':
			r.pos++
			return nil
		case ',':
			r.pos++
		}
		key := r.literal()
		r.peek()
		r.pos++ // :
		name := key[1 : len(key)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			name = []byte(unquote(key))
		}
		if len(name) == 0 {
			return fmt.Errorf("%s: %w", m.name, errEmptyKey)
		}
		f := m.jsonField(name)
		if f == nil {
			if err := r.skip(); err != nil {
				return fmt.Errorf("%s.%s: %w", m.name, name, err)
			}
			continue
		}
		if err := r.field(m, f, s, depth); err != nil {
			return err
		}
	}
}

func (r *jsonReader) field(m *message, f *field, s sink, depth int) error {
	switch f.kind {
	case kMsg:
		if !f.repeated {
			var sub sink
			if s != nil {
				sub = s.msg(f.num)
			}
			return r.object(f.msg, sub, depth)
		}
		return r.array(m, f, func() error {
			var sub sink
			if s != nil {
				sub = s.msg(f.num)
			}
			return r.object(f.msg, sub, depth)
		})
	case kStrings, kPackedFixed64, kPackedDouble, kPackedVarint:
		return r.array(m, f, func() error {
			_, err := r.scalar(m, f)
			return err
		})
	}
	v, err := r.scalar(m, f)
	if err != nil {
		return err
	}
	if s != nil {
		s.set(f.num, v)
	}
	return nil
}

// array reads a JSON array (or null), each element with one.
func (r *jsonReader) array(m *message, f *field, one func() error) error {
	switch r.peek() {
	case '[':
		r.pos++
	case 'n':
		r.literal()
		return nil
	case '{':
		return fmt.Errorf("%s.%s: an object where an array belongs", m.name, f.name)
	default:
		return fmt.Errorf("%s.%s: %s where an array belongs", m.name, f.name, describe(r.literal()))
	}
	for {
		switch r.peek() {
		case ']':
			r.pos++
			return nil
		case ',':
			r.pos++
		}
		if err := one(); err != nil {
			return err
		}
	}
}

// scalar reads one value of a scalar field (or one element of a repeated
// one).
func (r *jsonReader) scalar(m *message, f *field) (scalar, error) {
	var lit []byte
	switch r.peek() {
	case '{':
		return scalar{}, fmt.Errorf("%s.%s: an object is not %s", m.name, f.name, kindNames[f.kind])
	case '[':
		return scalar{}, fmt.Errorf("%s.%s: an array is not %s", m.name, f.name, kindNames[f.kind])
	default:
		lit = r.literal()
	}
	bad := func() (scalar, error) {
		return scalar{}, fmt.Errorf("%s.%s: %s is not %s", m.name, f.name, describe(lit), kindNames[f.kind])
	}
	isString := lit[0] == '"'
	switch f.kind {
	case kBytes, kID:
		// The reference decoder reads these strings raw, escapes and
		// all, and null is an error: read them raw too.
		if !isString || bytes.IndexByte(lit, '\\') >= 0 {
			return bad()
		}
		src := lit[1 : len(lit)-1]
		if len(src) == 0 {
			return scalar{isStr: true}, nil
		}
		var out []byte
		var err error
		if f.kind == kID {
			if hex.DecodedLen(len(src)) != f.size {
				return bad()
			}
			out = make([]byte, f.size)
			_, err = hex.Decode(out, src)
		} else {
			out = make([]byte, base64.StdEncoding.DecodedLen(len(src)))
			var n int
			n, err = base64.StdEncoding.Decode(out, src)
			out = out[:n]
		}
		if err != nil {
			return bad()
		}
		return scalar{str: string(out), isStr: true}, nil
	case kString, kStrings:
		switch {
		case isString:
			return scalar{str: unquote(lit), isStr: true}, nil
		case lit[0] == 'n':
			return scalar{isStr: true}, nil
		}
		return bad()
	case kBool:
		switch lit[0] {
		case 't':
			return scalar{u: 1}, nil
		case 'f':
			return scalar{}, nil
		}
		return bad()
	case kEnum:
		if isString {
			n, ok := f.enum[unquote(lit)]
			if !ok {
				return bad()
			}
			return scalar{u: uint64(n)}, nil
		}
		n, err := strconv.ParseInt(string(lit), 10, 32)
		if err != nil {
			return bad()
		}
		return scalar{u: uint64(n)}, nil
	}
	// A number, or a string holding one.
	var text string
	switch {
	case isString:
		text = unquote(lit)
	case lit[0] == '-' || (lit[0] >= '0' && lit[0] <= '9'):
		text = string(lit)
	default:
		return bad()
	}
	var v scalar
	var err error
	switch f.kind {
	case kFixed64, kPackedFixed64, kPackedVarint:
		v.u, err = strconv.ParseUint(text, 10, 64)
	case kUint32, kFixed32:
		v.u, err = strconv.ParseUint(text, 10, 32)
	case kInt32, kSint32:
		var n int64
		n, err = strconv.ParseInt(text, 10, 32)
		v.u = uint64(n)
	case kInt64, kSfixed64:
		var n int64
		n, err = strconv.ParseInt(text, 10, 64)
		v.u = uint64(n)
	case kDouble, kPackedDouble:
		v.f, err = strconv.ParseFloat(text, 64)
	}
	if err != nil {
		return bad()
	}
	return v, nil
}

var kindNames = map[kind]string{
	kString: "a string", kStrings: "a string", kBytes: "a base64 string", kID: "a hex id",
	kBool: "a boolean", kEnum: "an enum value", kUint32: "a uint32", kFixed32: "a uint32",
	kInt32: "an int32", kSint32: "an int32", kInt64: "an int64", kSfixed64: "an int64",
	kFixed64: "a uint64", kPackedFixed64: "a uint64", kPackedVarint: "a uint64",
	kDouble: "a number", kPackedDouble: "a number",
}
