package otlp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The protobuf wire format, as much as OTLP/HTTP needs: the fields runway
// maps are read, every other one is passed over unread.

const (
	wireVarint = 0
	wireI64    = 1
	wireLen    = 2
	wireI32    = 5
)

// maxDepth bounds how deep attribute values nest (a kvlist of arrays of
// kvlists …): the reader recurses once a level.
const maxDepth = 32

var (
	errTruncated = io.ErrUnexpectedEOF
	errOverflow  = errors.New("varint overflows 64 bits")
	errWireType  = errors.New("a known field with the wrong wire type")
	// errGroup: OTLP is proto3, which has no groups.
	errGroup = errors.New("group wire type: not a proto3 message")
	errDepth = errors.New("attribute values nested too deep")
	// errTooMany: an export with more than maxElements (what would decode
	// to some 40 MB), which no agent sends, is refused whole.
	errTooMany = fmt.Errorf("more than %d records, points and attributes in one export: send smaller batches", maxElements)
)

// maxElements bounds the repeated messages one export decodes: an 8 MiB
// export of real token.usage points holds about 250,000.
const maxElements = 500_000

// field is one field of a message as read off the wire: u holds a varint
// or fixed value, b a length-delimited one's bytes.
type field struct {
	wire int
	u    uint64
	b    []byte
}

// eachField reads the message b field by field, handing each to f.
func eachField(b []byte, f func(num int32, v field) error) error {
	for len(b) > 0 {
		key, n := uvarint(b)
		if n <= 0 {
			return varintErr(n)
		}
		b = b[n:]
		// The field number as the collector takes it: the low 32 bits.
		num := int32(key >> 3)
		if num <= 0 {
			return fmt.Errorf("illegal field number %d", num)
		}
		v := field{wire: int(key & 7)}
		switch v.wire {
		case wireVarint:
			if v.u, n = uvarint(b); n <= 0 {
				return varintErr(n)
			}
		case wireI64:
			if len(b) < 8 {
				return errTruncated
			}
			v.u, n = binary.LittleEndian.Uint64(b), 8
		case wireI32:
			if len(b) < 4 {
				return errTruncated
			}
			v.u, n = uint64(binary.LittleEndian.Uint32(b)), 4
		case wireLen:
			size, m := uvarint(b)
			if m <= 0 {
				return varintErr(m)
			}
			if size > uint64(len(b)-m) {
				return errTruncated
			}
			v.b, n = b[m:m+int(size)], m+int(size)
		case 3, 4:
			return errGroup
		default:
			return fmt.Errorf("illegal wire type %d", v.wire)
		}
		b = b[n:]
		if err := f(num, v); err != nil {
			return err
		}
	}
	return nil
}

// uvarint reads a base-128 varint as the collector does: at most ten
// bytes, the bits past the 64th ignored. n is 0 when b ends first, -1
// when ten bytes do not end it.
func uvarint(b []byte) (x uint64, n int) {
	for i := 0; i < 10; i++ {
		if i == len(b) {
			return 0, 0
		}
		x |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return x, i + 1
		}
	}
	return 0, -1
}

func varintErr(n int) error {
	if n == 0 {
		return errTruncated
	}
	return errOverflow
}

func skipField(int32, field) error { return nil }

// occurrences is how many times message field num is in the message v
// holds: a record's attributes are sized before they are read, not grown
// one at a time (never more than reading them all takes).
func occurrences(v field, num int32) int {
	n := 0
	eachField(v.b, func(f int32, x field) error {
		if f == num && x.wire == wireLen {
			n++
		}
		return nil
	})
	return n
}

// message reads a field holding a message with read.
func (v field) message(read func(num int32, v field) error) error {
	if v.wire != wireLen {
		return errWireType
	}
	return eachField(v.b, read)
}

func (v field) fixed64(to *uint64) error {
	if v.wire != wireI64 {
		return errWireType
	}
	*to = v.u
	return nil
}

func (v field) varint(to *uint64) error {
	if v.wire != wireVarint {
		return errWireType
	}
	*to = v.u
	return nil
}

func (v field) text(to *string) error {
	if v.wire != wireLen {
		return errWireType
	}
	*to = string(v.b)
	return nil
}

// budget is how many more repeated messages (resources, scopes, records,
// metrics, points, attributes, array values) a request may decode: empty
// ones take 2 bytes on the wire and up to 96 decoded.
type budget int

// appendNew appends a zero element to *s and returns it, taken from left.
func appendNew[S ~[]T, T any](s *S, left *budget) (*T, error) {
	if *left--; *left < 0 {
		return nil, errTooMany
	}
	var zero T
	*s = append(*s, zero)
	return &(*s)[len(*s)-1], nil
}

// sized is a record's attributes sized before they are read, never past
// what the budget has left.
func sized(v field, num int32, left *budget) attrs {
	return make(attrs, 0, min(occurrences(v, num), int(max(*left, 0))))
}

func (r *logsRequest) readProto(b []byte) error {
	left := budget(maxElements)
	return readExport(b, &left, &r.Resources,
		func(rl *resourceLogs) (*resource, *[]scopeLogs) { return &rl.Resource, &rl.Scopes },
		func(s *scopeLogs, v field) error {
			lr, err := appendNew(&s.Records, &left)
			if err != nil {
				return err
			}
			lr.Attrs = sized(v, 6, &left)
			return v.message(func(num int32, v field) error { return lr.read(num, v, &left) })
		})
}

func (r *metricsRequest) readProto(b []byte) error {
	left := budget(maxElements)
	return readExport(b, &left, &r.Resources,
		func(rm *resourceMetrics) (*resource, *[]scopeMetrics) { return &rm.Resource, &rm.Scopes },
		func(s *scopeMetrics, v field) error {
			m, err := appendNew(&s.Metrics, &left)
			if err != nil {
				return err
			}
			return v.message(func(num int32, v field) error { return m.read(num, v, &left) })
		})
}

// readExport reads an export request: its resources (field 1), each a
// resource (1) and scopes (2), each scope's records (2) read by item.
func readExport[R, S any](b []byte, left *budget, resources *[]R, parts func(*R) (*resource, *[]S), item func(*S, field) error) error {
	return eachField(b, func(num int32, v field) error {
		if num != 1 {
			return nil
		}
		r, err := appendNew(resources, left)
		if err != nil {
			return err
		}
		res, scopes := parts(r)
		return v.message(func(num int32, v field) error {
			switch num {
			case 1:
				return res.read(v, left)
			case 2:
				s, err := appendNew(scopes, left)
				if err != nil {
					return err
				}
				return v.message(func(num int32, v field) error {
					if num != 2 {
						return nil
					}
					return item(s, v)
				})
			}
			return nil
		})
	})
}

// read reads a resource; one sent twice is merged, as protobuf does.
func (r *resource) read(v field, left *budget) error {
	return v.message(func(num int32, v field) error {
		if num != 1 {
			return nil
		}
		return r.Attrs.add(v, 0, left)
	})
}

func (lr *logRecord) read(num int32, v field, left *budget) error {
	switch num {
	case 1:
		return v.fixed64((*uint64)(&lr.Time))
	case 11:
		return v.fixed64((*uint64)(&lr.Observed))
	case 5:
		return lr.Body.read(v, 0, left)
	case 6:
		return lr.Attrs.add(v, 0, left)
	case 12:
		return v.text(&lr.EventName)
	}
	return nil
}

// add reads a KeyValue into a.
func (a *attrs) add(v field, depth int, left *budget) error {
	kv, err := appendNew(a, left)
	if err != nil {
		return err
	}
	return v.message(func(num int32, v field) error {
		switch num {
		case 1:
			return v.text(&kv.Key)
		case 2:
			return kv.Value.read(v, depth, left)
		}
		return nil
	})
}

// read reads an AnyValue into val: its members replace each other, as a
// oneof's do.
func (val *value) read(v field, depth int, left *budget) error {
	if depth > maxDepth {
		return errDepth
	}
	return v.message(func(num int32, v field) error {
		switch num {
		case 1:
			*val = value{kind: valueStr}
			return v.text(&val.str)
		case 7:
			*val = value{kind: valueBytes}
			return v.text(&val.str)
		case 2:
			*val = value{kind: valueBool}
			err := v.varint(&val.num)
			val.num = min(val.num, 1)
			return err
		case 3:
			*val = value{kind: valueInt}
			return v.varint(&val.num)
		case 4:
			*val = value{kind: valueDouble}
			return v.fixed64(&val.num)
		case 5, 6:
			*val = value{kind: valueArray, list: &valueList{}}
			if num == 6 {
				val.kind = valueMap
			}
			return val.list.read(v, val.kind, depth+1, left)
		case 8:
			*val = value{} // a profiles dictionary index: no value here
		}
		return nil
	})
}

// read reads an ArrayValue or a KeyValueList: both hold their elements in
// field 1.
func (l *valueList) read(v field, kind valueKind, depth int, left *budget) error {
	return v.message(func(num int32, v field) error {
		switch {
		case num != 1:
			return nil
		case kind == valueMap:
			return l.kv.add(v, depth, left)
		}
		val, err := appendNew(&l.array, left)
		if err != nil {
			return err
		}
		return val.read(v, depth, left)
	})
}

func (m *metric) read(num int32, v field, left *budget) error {
	switch num {
	case 1:
		return v.text(&m.Name)
	case 7:
		// The data is a oneof: a member replaces the one before.
		m.Sum = &sum{}
		return v.message(func(num int32, v field) error { return m.Sum.read(num, v, left) })
	case 5, 9, 10, 11: // gauge, histogram, exponential histogram, summary
		m.Sum = nil
	}
	return nil
}

func (s *sum) read(num int32, v field, left *budget) error {
	switch num {
	case 1:
		p, err := appendNew(&s.Points, left)
		if err != nil {
			return err
		}
		p.Attrs = sized(v, 7, left)
		return v.message(func(num int32, v field) error { return p.read(num, v, left) })
	case 2:
		var t uint64
		err := v.varint(&t)
		s.Temporality = temporality(t)
		return err
	}
	return nil
}

func (p *numberPoint) read(num int32, v field, left *budget) error {
	switch num {
	case 7:
		return p.Attrs.add(v, 0, left)
	case 2:
		return v.fixed64((*uint64)(&p.Start))
	case 3:
		return v.fixed64((*uint64)(&p.At))
	case 4:
		var bits uint64
		err := v.fixed64(&bits)
		p.AsDouble, p.AsInt = double{math.Float64frombits(bits), true}, integer{}
		return err
	case 6:
		var n uint64
		err := v.fixed64(&n)
		p.AsInt, p.AsDouble = integer{int64(n), true}, double{}
		return err
	}
	return nil
}

// appendVarint, appendTag and appendLen write the responses.
func appendVarint(b []byte, x uint64) []byte { return binary.AppendUvarint(b, x) }

func appendTag(b []byte, num, wire int) []byte {
	return appendVarint(b, uint64(num)<<3|uint64(wire))
}

func appendLen(b []byte, v []byte) []byte {
	return append(appendVarint(b, uint64(len(v))), v...)
}
