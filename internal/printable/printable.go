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
// every terminal sequence, and 0x9b is CSI on its own), invisible ones
// (format characters such as bidirectional overrides, zero-width spaces
// and joiners, U+2060 and U+FEFF; line and paragraph separators; fillers
// and variation selectors), which make a name read as another or two
// names look the same, and bytes that are not UTF-8 (a lone 0x9b among
// them). Plain text is returned as it is.
func String(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(r == utf8.RuneError && n <= 1) && !hidden(r) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hidden: r is a control character or prints nothing (Unicode's default
// ignorable code points, and the separators that break a line).
func hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
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

// Cut returns the longest prefix of s of at most n bytes that ends on a
// rune boundary, so a bound never leaves half a character.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
