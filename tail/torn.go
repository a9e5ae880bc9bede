package tail

import (
	"bytes"

	"github.com/agentrunway/runway/internal/jsonsafe"
)

// validLine is line when it is valid JSON, else the complete line a torn
// write ran into (tornTail), else nil.
func validLine(line []byte) []byte {
	if jsonsafe.Valid(line) {
		return line
	}
	return tornTail(line)
}

// tornTail returns the complete line a torn write ran into (an agent died
// mid-line and its next run appended after the half), or nil: the object
// the line's last brace closes. Found from the end in one pass, since
// inside the complete line every unescaped quote opens or closes a string.
func tornTail(line []byte) []byte {
	n := len(bytes.TrimRight(line, " \t\r"))
	if n == 0 || line[n-1] != '}' {
		return nil
	}
	depth := 0
	for i := n - 1; i > 0; i-- {
		switch line[i] {
		case '"':
			if i = stringStart(line, i); i <= 0 {
				return nil
			}
		case '}', ']':
			if depth++; depth > jsonsafe.MaxNesting {
				return nil // deeper than any line parsed
			}
		case '{', '[':
			if depth--; depth == 0 {
				if line[i] == '{' && jsonsafe.Valid(line[i:n]) {
					return line[i:n]
				}
				return nil
			}
		}
	}
	return nil
}

// stringStart is the offset of the quote opening the JSON string that the
// quote at line[j] closes: the quote before it not escaped by an odd run of
// backslashes; -1 when there is none.
func stringStart(line []byte, j int) int {
	for {
		k := bytes.LastIndexByte(line[:j], '"')
		if k < 0 {
			return -1
		}
		b := k
		for b > 0 && line[b-1] == '\\' {
			b--
		}
		if (k-b)%2 == 0 {
			return k
		}
		j = k
	}
}
