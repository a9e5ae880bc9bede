package printable

import (
	"testing"
	"unicode"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/home/dev/src/app", "/home/dev/src/app"},
		{"/home/dev/\x1b]0;pwned\x07src", "/home/dev/]0;pwnedsrc"},
		{"\x1b[2J\x1b[31mred", "[2J[31mred"},
		{"tab\there\nnew\rline\x7f", "tabherenewline"},
		{"c1 \u009b31m csi", "c1 31m csi"},
		{"raw \x9b31m csi", "raw 31m csi"},
		{"abc\u202edcba.txt", "abcdcba.txt"},
		{"grüße 日本 🚀", "grüße 日本 🚀"},
		// Invisible: a session id with a zero-width space read as a second
		// row identical to the first.
		{"5e55a1f0\u200b-0000", "5e55a1f0-0000"},
		{"\ufeffbom\u2060wj\u200c\u200dzw\u00adsoft", "bomwjzwsoft"},
		{"rtl\u2067x\u2069 \u200fmark\u061c", "rtlx mark"},
		{"line\u2028para\u2029", "linepara"},
		{"fill\u3164er\u115f a\ufe0f tag\U000e0041", "filler a tag"},
		{"", ""},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("\x1b[31mred\x9b")
	f.Add("id\u200b\u2060\ufeff\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		for _, r := range out {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x1b || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Bidi_Control, r) {
				t.Fatalf("String(%q) = %q keeps %U", s, out, r)
			}
		}
		if String(out) != out {
			t.Fatalf("not idempotent on %q", s)
		}
	})
}

func TestCutKeepsWholeRunes(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"aé", 2, "a"}, // é is two bytes: never half of it
		{"é", 1, ""},
		{"", 0, ""},
	} {
		if got := Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
