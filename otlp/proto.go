package otlp

import (
	"fmt"
	"math"
)

// scalar is one field's value as the readers hand it to a sink: u for
// the integer kinds (two's complement for the signed ones), f for a
// double, and a string or bytes field's content in text (protobuf, valid
// only during the call) or str (JSON).
type scalar struct {
	u     uint64
	f     float64
	text  []byte
	str   string
	isStr bool
}

func (v scalar) String() string {
	if v.isStr {
		return v.str
	}
	return string(v.text)
}

// sink takes the fields runway keeps from one message. The readers call
// set for a scalar field and msg for a message field (once per element
// of a repeated one) before reading it; a nil sink reads the message
// only to check it.
type sink interface {
	set(num int32, v scalar)
	msg(num int32) sink
}

// readProto reads a protobuf message of type m into s.
func readProto(b []byte, m *message, s sink, depth int) error {
	depth, err := m.enter(depth)
	if err != nil {
		return err
	}
	if r, ok := s.(reserver); ok {
		reserve(b, m, r)
	}
	for pos := 0; pos < len(b); {
		num, wt, next, err := tag(b, pos)
		if err != nil {
			return err
		}
		pos = next
		f := m.field(num)
		if f == nil {
			if pos, err = skip(b, pos, wt); err != nil {
				return err
			}
			continue
		}
		if pos, err = readProtoField(b, pos, wt, m, f, s, depth); err != nil {
			return err
		}
	}
	return nil
}

func readProtoField(b []byte, pos, wt int, m *message, f *field, s sink, depth int) (int, error) {
	var v scalar
	var err error
	switch f.kind {
	case kPackedFixed64, kPackedDouble:
		if wt == wireLen {
			var data []byte
			if data, pos, err = lenField(b, pos); err != nil {
				return 0, err
			}
			if len(data)%8 != 0 {
				return 0, fmt.Errorf("%s.%s: packed length %d is not a multiple of 8", m.name, f.name, len(data))
			}
			return pos, nil
		}
	case kPackedVarint:
		if wt == wireLen {
			var data []byte
			if data, pos, err = lenField(b, pos); err != nil {
				return 0, err
			}
			for p := 0; p < len(data); {
				if _, p, err = uvarint(data, p); err != nil {
					return 0, err
				}
			}
			return pos, nil
		}
	}
	if want := f.kind.wire(); wt != want {
		return 0, fmt.Errorf("%s.%s: wire type %d, want %d", m.name, f.name, wt, want)
	}
	switch wt {
	case wireVarint:
		v.u, pos, err = uvarint(b, pos)
		if f.kind == kSint32 {
			v.u = uint64(int64(int32(uint32(v.u>>1) ^ -uint32(v.u&1))))
		}
	case wireI64:
		v.u, pos, err = fixed64(b, pos)
		if f.kind == kDouble {
			v.f = math.Float64frombits(v.u)
		}
	case wireI32:
		var x uint32
		x, pos, err = fixed32(b, pos)
		v.u = uint64(x)
	case wireLen:
		v.text, pos, err = lenField(b, pos)
	}
	if err != nil {
		return 0, err
	}
	switch f.kind {
	case kMsg:
		var sub sink
		if s != nil {
			sub = s.msg(f.num)
		}
		if err := readProto(v.text, f.msg, sub, depth); err != nil {
			return 0, err
		}
		return pos, nil
	case kID:
		if n := len(v.text); n != 0 && n != f.size {
			return 0, fmt.Errorf("%s.%s: %d bytes, want %d", m.name, f.name, n, f.size)
		}
	}
	if s != nil {
		s.set(f.num, v)
	}
	return pos, nil
}

// reserve counts the elements of m's repeated message fields in b and
// tells r. A malformed b is left for the reading to report.
func reserve(b []byte, m *message, r reserver) {
	var counts [16]int
	for pos := 0; pos < len(b); {
		num, wt, next, err := tag(b, pos)
		if err != nil {
			break
		}
		if wt == wireLen {
			for i := range m.fields {
				if f := &m.fields[i]; f.num == num && f.repeated && i < len(counts) {
					counts[i]++
				}
			}
		}
		if pos, err = skip(b, next, wt); err != nil {
			break
		}
	}
	for i, n := range counts {
		if n > 1 {
			r.reserve(m.fields[i].num, n)
		}
	}
}
