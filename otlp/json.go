package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The OTLP/JSON mapping (the protobuf JSON mapping with OTLP's changes):
// field names in lowerCamelCase or as in the .proto; 64-bit integers as
// numbers or decimal strings; enums as numbers or names; trace and span
// ids in hex; bytes in base64; null as the field's zero value where the
// reference decoder reads it so; unknown fields ignored.

// errEmptyKey: the reference decoder takes a field named "" for the end
// of the object and misreads what follows; runway refuses it.
var errEmptyKey = errors.New("a field with an empty name")

type jsonReader struct {
	dec *json.Decoder
}

func readJSON(body []byte, m *message, s sink) error {
	r := jsonReader{dec: json.NewDecoder(bytes.NewReader(body))}
	r.dec.UseNumber()
	if err := r.object(m, s, 0); err != nil {
		return err
	}
	if _, err := r.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the request")
		}
		return err
	}
	return nil
}

// object reads a JSON object (or null) as a message of type m.
func (r *jsonReader) object(m *message, s sink, depth int) error {
	if m.counted {
		if depth >= recursionLimit {
			return errDepth
		}
		depth++
	} else {
		depth = 0
	}
	t, err := r.dec.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('{') {
		return fmt.Errorf("%s: %v where an object belongs", m.name, t)
	}
	for r.dec.More() {
		t, err := r.dec.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		if name == "" {
			return fmt.Errorf("%s: %w", m.name, errEmptyKey)
		}
		f := m.jsonField(name)
		if f == nil {
			var skip json.RawMessage
			if err := r.dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if err := r.field(m, f, s, depth); err != nil {
			return err
		}
	}
	_, err = r.dec.Token() // }
	return err
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
	t, err := r.dec.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('[') {
		return fmt.Errorf("%s.%s: %v where an array belongs", m.name, f.name, t)
	}
	for r.dec.More() {
		if err := one(); err != nil {
			return err
		}
	}
	_, err = r.dec.Token() // ]
	return err
}

// scalar reads one value of a scalar field (or one element of a repeated
// one).
func (r *jsonReader) scalar(m *message, f *field) (scalar, error) {
	bad := func(what any) (scalar, error) {
		return scalar{}, fmt.Errorf("%s.%s: %v is not %s", m.name, f.name, what, kindNames[f.kind])
	}
	if f.kind == kBytes || f.kind == kID {
		// The reference decoder reads these strings raw, escapes and
		// all, and null is an error: read them raw too.
		var raw json.RawMessage
		if err := r.dec.Decode(&raw); err != nil {
			return scalar{}, err
		}
		if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
			return bad(string(raw))
		}
		src := raw[1 : len(raw)-1]
		if len(src) == 0 {
			return scalar{isStr: true}, nil
		}
		var out []byte
		var err error
		if f.kind == kID {
			if hex.DecodedLen(len(src)) != f.size {
				return bad(string(raw))
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
			return bad(string(raw))
		}
		return scalar{str: string(out), isStr: true}, nil
	}
	t, err := r.dec.Token()
	if err != nil {
		return scalar{}, err
	}
	switch f.kind {
	case kString, kStrings:
		switch t := t.(type) {
		case nil:
			return scalar{isStr: true}, nil
		case string:
			return scalar{str: t, isStr: true}, nil
		}
		return bad(t)
	case kBool:
		if b, ok := t.(bool); ok {
			if b {
				return scalar{u: 1}, nil
			}
			return scalar{}, nil
		}
		return bad(t)
	case kEnum:
		switch t := t.(type) {
		case json.Number:
			n, err := strconv.ParseInt(string(t), 10, 32)
			if err != nil {
				return bad(t)
			}
			return scalar{u: uint64(n)}, nil
		case string:
			n, ok := f.enum[t]
			if !ok {
				return bad(strconv.Quote(t))
			}
			return scalar{u: uint64(n)}, nil
		}
		return bad(t)
	}
	// A number, or a string holding one.
	var text string
	switch t := t.(type) {
	case json.Number:
		text = string(t)
	case string:
		text = t
	default:
		return bad(t)
	}
	var v scalar
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
		return bad(strconv.Quote(text))
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
