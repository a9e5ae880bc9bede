// Package jsonsafe validates JSON from files and processes runway does not
// control, without letting a crafted input exhaust the stack: gjson
// validates by recursion.
package jsonsafe

import (
	"bytes"
	"math"
	"time"

	"github.com/tidwall/gjson"
)

// MaxNesting is the deepest nesting of arrays and objects a parsed value may
// have. Real lines nest a dozen levels; gjson validates by recursion, so a
// crafted line of a few MB of brackets would exhaust the goroutine's stack
// and end the process.
const MaxNesting = 512

// TooDeep reports whether line nests deeper than MaxNesting. It skips
// strings with IndexByte, so a line of long strings costs little.
func TooDeep(line []byte) bool {
	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			if i = StringEnd(line, i); i < 0 {
				return false // unterminated: the validator refuses it
			}
		case '[', '{':
			if depth++; depth > MaxNesting {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}

// Valid reports whether b is JSON that nests no deeper than MaxNesting.
func Valid(b []byte) bool {
	return !TooDeep(b) && gjson.ValidBytes(b)
}

// StringEnd is the offset of the quote closing the JSON string opened at
// line[i] (the first quote not escaped by an odd run of backslashes), or
// -1 when the line ends first. It skips with IndexByte.
func StringEnd(line []byte, i int) int {
	for {
		j := bytes.IndexByte(line[i+1:], '"')
		if j < 0 {
			return -1
		}
		i += j + 1
		k := i - 1
		for line[k] == '\\' { // stops at the opening quote at the latest
			k--
		}
		if (i-1-k)%2 == 0 {
			return i
		}
	}
}

// Epoch reads a JSON number that is a Unix time, in seconds or, from 1e11
// on (the year 5138 in seconds), in milliseconds: the agents write both for
// one field across versions. Zero when it is neither.
func Epoch(f float64) time.Time {
	if math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 || f >= 1e15 {
		return time.Time{}
	}
	if f >= 1e11 {
		return time.UnixMilli(int64(math.Round(f))).UTC()
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
}
