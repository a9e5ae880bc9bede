package tail

import (
	"bytes"

	"github.com/agentrunway/runway/internal/jsonsafe"
)

// objectOpen is how every line of both formats, and most objects inside
// them, begin.
var objectOpen = []byte(`{"`)

// tornBudget bounds what tornTail scans, in multiples of the line's
// length: a tear sits a few objects deep in a real line, each costing one
// scan to the end.
const tornBudget = 16

// tornTail returns the complete line a torn write ran into, or nil. When
// an agent dies mid-line and its next run appends a line right after the
// half, the two read as one line that is not JSON; the complete line is
// the suffix of it that is one JSON object. (The sample log recovers the
// same case by its own line start; transcripts have no fixed one.)
//
// Candidates are the object openings after the first byte, from the left.
// An opening inside the torn half usually closes before the line ends and
// costs only its own object; one the tear cut open costs a scan to the end.
// Past tornBudget times the line's length the line is given up as damaged,
// so a crafted line cannot make this quadratic.
func tornTail(line []byte) []byte {
	budget := tornBudget*len(line) + 4096
	n := len(bytes.TrimRight(line, " \t\r"))
	for i := 1; i < n; i++ {
		j := bytes.Index(line[i:n], objectOpen)
		if j < 0 {
			return nil
		}
		i += j
		end, cost := objectEnd(line[i:n])
		if end == n-i && jsonsafe.Valid(line[i:n]) {
			return line[i:n]
		}
		if budget -= cost; budget < 0 {
			return nil
		}
	}
	return nil
}

// objectEnd follows the object that b opens to the brace closing it,
// skipping strings. It returns the offset just after that brace (-1 when
// the object is not closed in b, or nests deeper than jsonsafe allows) and
// how many bytes it looked at.
func objectEnd(b []byte) (end, cost int) {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			if i = jsonsafe.StringEnd(b, i); i < 0 {
				return -1, len(b)
			}
		case '{', '[':
			if depth++; depth > jsonsafe.MaxNesting {
				return -1, i
			}
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, i + 1
			}
		}
	}
	return -1, len(b)
}
