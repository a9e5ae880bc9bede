package tail

import "bytes"

// maxNesting is the deepest nesting of arrays and objects a parsed line may
// have. Real lines nest a dozen levels; gjson validates by recursion, so a
// crafted line of a few MB of brackets would exhaust the goroutine's stack
// and end the process.
const maxNesting = 512

// tooDeep reports whether line nests deeper than maxNesting. It skips
// strings with IndexByte, so a line of long strings costs little.
func tooDeep(line []byte) bool {
	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			// Find the closing quote: one not escaped by an odd run of
			// backslashes.
			for {
				j := bytes.IndexByte(line[i+1:], '"')
				if j < 0 {
					return false // unterminated: the validator refuses it
				}
				i += j + 1
				k := i - 1
				for k >= 0 && line[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		case '[', '{':
			if depth++; depth > maxNesting {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}
