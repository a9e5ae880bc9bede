package tail

import (
	"bytes"

	"github.com/agentrunway/runway/internal/jsonsafe"
)

// objectOpen is how every line of both formats begins.
var objectOpen = []byte(`{"`)

// tornTail returns the complete line a torn write ran into, or nil. When
// an agent dies mid-line and its next run appends a line right after the
// half, the two read as one line that is not JSON; the complete line is
// the object that the line's last brace closes. (The sample log recovers
// the same case by its own line start; transcripts have no fixed one.)
//
// It is found from the end, in one pass: inside the complete line every
// quote is known to open or close a string (a quote escaped by an odd run
// of backslashes is neither), whatever the torn half holds, so the brace
// that balances the last one is that line's first byte. The cost is one
// scan and one validation, whatever a crafted line holds; a line nested
// deeper than the parsers accept is given up at once.
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
