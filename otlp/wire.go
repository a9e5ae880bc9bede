package otlp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The protobuf wire format, as much of it as OTLP/HTTP needs: runway
// reads the export requests and writes the export responses itself, so
// no protobuf runtime (and its start-up cost) is linked into the binary.

const (
	wireVarint = 0
	wireI64    = 1
	wireLen    = 2
	wireStart  = 3 // group start (proto2 only)
	wireEnd    = 4 // group end
	wireI32    = 5
)

// recursionLimit bounds the nesting of attribute values (a kvlist of
// arrays of kvlists …), as the reference decoder does.
const recursionLimit = 100

var (
	errTruncated = io.ErrUnexpectedEOF
	errOverflow  = errors.New("varint overflows 64 bits")
	errLength    = errors.New("negative length")
	// errGroup: OTLP is proto3, which has no groups; a body with one is
	// not an OTLP message (the reference decoder reads empty ones only).
	errGroup = errors.New("group wire type: not a proto3 message")
	// errDepth: attribute values nested deeper than recursionLimit.
	errDepth = errors.New("attribute values nested too deep")
)

// uvarint reads a base-128 varint at b[pos:]. Like the reference decoder
// it takes at most ten bytes and ignores bits past the 64th.
func uvarint(b []byte, pos int) (uint64, int, error) {
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, 0, errOverflow
		}
		if pos >= len(b) {
			return 0, 0, errTruncated
		}
		c := b[pos]
		pos++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, pos, nil
		}
	}
}

func fixed64(b []byte, pos int) (uint64, int, error) {
	if len(b)-pos < 8 {
		return 0, 0, errTruncated
	}
	return binary.LittleEndian.Uint64(b[pos:]), pos + 8, nil
}

func fixed32(b []byte, pos int) (uint32, int, error) {
	if len(b)-pos < 4 {
		return 0, 0, errTruncated
	}
	return binary.LittleEndian.Uint32(b[pos:]), pos + 4, nil
}

// lenField reads a length-delimited field's length and returns its bytes.
func lenField(b []byte, pos int) ([]byte, int, error) {
	n, pos, err := uvarint(b, pos)
	if err != nil {
		return nil, 0, err
	}
	if int(n) < 0 {
		return nil, 0, errLength
	}
	if uint64(len(b)-pos) < n {
		return nil, 0, errTruncated
	}
	end := pos + int(n)
	return b[pos:end], end, nil
}

// tag reads a field's key. The field number is taken as the reference
// decoder takes it (the low 32 bits of tag>>3), and must be positive.
func tag(b []byte, pos int) (int32, int, int, error) {
	t, pos, err := uvarint(b, pos)
	if err != nil {
		return 0, 0, 0, err
	}
	num := int32(t >> 3)
	if num <= 0 {
		return 0, 0, 0, fmt.Errorf("illegal field number %d", num)
	}
	return num, int(t & 7), pos, nil
}

// skip passes over the value of a field runway does not know.
func skip(b []byte, pos, wt int) (int, error) {
	var err error
	switch wt {
	case wireVarint:
		_, pos, err = uvarint(b, pos)
	case wireI64:
		_, pos, err = fixed64(b, pos)
	case wireLen:
		_, pos, err = lenField(b, pos)
	case wireI32:
		_, pos, err = fixed32(b, pos)
	case wireStart, wireEnd:
		return 0, errGroup
	default:
		return 0, fmt.Errorf("illegal wire type %d", wt)
	}
	return pos, err
}

// appendVarint and appendTag write the export responses.
func appendVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

func appendTag(b []byte, num, wt int) []byte {
	return appendVarint(b, uint64(num)<<3|uint64(wt))
}

func appendLen(b []byte, v []byte) []byte {
	return append(appendVarint(b, uint64(len(v))), v...)
}
