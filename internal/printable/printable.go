// Package printable makes text that came from a file safe to print: a
// transcript's cwd, a file name, a model name can hold escape sequences
// that would move the cursor, recolour or retitle the user's terminal.
package printable

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s without control characters (C0, DEL, C1: ESC starts
// every terminal sequence, and 0x9b is CSI on its own), bidirectional
// overrides (which make a name read as another) and bytes that are not
// UTF-8 (a lone 0x9b among them). Plain text is returned as it is.
func String(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(r == utf8.RuneError && n <= 1) && !unicode.IsControl(r) && !unicode.Is(unicode.Bidi_Control, r) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// plain reports whether s is printable ASCII, the case of nearly every
// string: no copy then.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// Strings cleans each of ss in place and returns it.
func Strings(ss []string) []string {
	for i, s := range ss {
		ss[i] = String(s)
	}
	return ss
}
