package tail

import (
	"bytes"

	"github.com/agentrunway/runway/internal/jsonsafe"
)

// Shortcuts to one top-level member of a line that is not parsed (its
// stamp, its type): walking a tool result of hundreds of KB with gjson cost
// a cold start more than parsing. Each gives what a full parse of a valid
// line gives, or false to say "ask the parser" (FuzzMembers).

// maxTrailing bounds how many members trailingMember looks at.
const maxTrailing = 8

// trailingMember returns the value of the member named key among the
// simple "name":"value" pairs (no spaces, no quote or backslash inside)
// that end the line's object, as Claude ends its lines (type, uuid,
// timestamp). Walked from the end, the first found is the last in the
// line, the one a parser's ForEach keeps.
func trailingMember(line []byte, key string) ([]byte, bool) {
	end := len(line)
	for end > 0 && (line[end-1] == ' ' || line[end-1] == '\t' || line[end-1] == '\r') {
		end--
	}
	if end < 1 || line[end-1] != '}' {
		return nil, false
	}
	i := end - 1 // the byte after the member being read
	for range maxTrailing {
		value, vo, ok := stringBefore(line, i)
		if !ok || vo < 1 || line[vo-1] != ':' {
			return nil, false
		}
		name, no, ok := stringBefore(line, vo-1)
		if !ok || no < 1 {
			return nil, false
		}
		if string(name) == key {
			return value, true
		}
		switch line[no-1] {
		case ',':
			i = no - 1
		default: // '{': the first member; anything else: not simple
			return nil, false
		}
	}
	return nil, false
}

// maxSimple bounds a string stringBefore reads: names and stamps are short.
const maxSimple = 128

// stringBefore returns the string ending just before line[i] (its content
// and the offset of its opening quote) when it has no quote or backslash
// inside and its opening quote follows a comma, colon or brace.
func stringBefore(line []byte, i int) ([]byte, int, bool) {
	if i < 2 || line[i-1] != '"' {
		return nil, 0, false
	}
	from := max(0, i-1-maxSimple-1)
	o := bytes.LastIndexByte(line[from:i-1], '"')
	if o < 0 {
		return nil, 0, false
	}
	o += from
	s := line[o+1 : i-1]
	if o < 1 || bytes.IndexByte(s, '\\') >= 0 {
		return nil, 0, false
	}
	switch line[o-1] {
	case ',', ':', '{':
		return s, o, true
	}
	return nil, 0, false
}

// firstMember returns the value of the first top-level member named key,
// as gjson.Get does, when it and every name before it have no escape.
// Kept because gjson.Get alone made BenchmarkParse/claude 1.15x slower.
func firstMember(line []byte, key string) ([]byte, bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return nil, false
	}
	depth := 0
	wantName := false // the next string at depth 1 is a member name
	for ; i < len(line); i++ {
		switch c := line[i]; c {
		case '"':
			end := jsonsafe.StringEnd(line, i)
			if end < 0 {
				return nil, false
			}
			if depth == 1 && wantName {
				name := line[i+1 : end]
				if !plain(name) {
					return nil, false // an escaped name may be key
				}
				wantName = false
				if string(name) == key {
					j := skipSpace(line, end+1)
					if j >= len(line) || line[j] != ':' {
						return nil, false
					}
					j = skipSpace(line, j+1)
					if j >= len(line) || line[j] != '"' {
						return nil, false // not a string
					}
					vend := jsonsafe.StringEnd(line, j)
					if vend < 0 || !plain(line[j+1:vend]) {
						return nil, false
					}
					return line[j+1 : vend], true
				}
			}
			i = end
		case '{', '[':
			depth++
			wantName = c == '{' && depth == 1
		case '}', ']':
			depth--
			if depth <= 0 {
				return nil, false
			}
		case ',':
			wantName = depth == 1
		}
	}
	return nil, false
}

// plain reports whether a string's content has no escape.
func plain(s []byte) bool { return bytes.IndexByte(s, '\\') < 0 }

func skipSpace(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r') {
		i++
	}
	return i
}
