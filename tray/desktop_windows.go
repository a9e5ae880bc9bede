package tray

import (
	"bytes"
	"os/exec"
	"strings"
	"unicode/utf16"
)

// copyText feeds clip.exe UTF-16 with a byte-order mark: given UTF-8 it
// would read the OEM code page and garble "▸" and "·".
func copyText(text string) error {
	var b bytes.Buffer
	b.Write([]byte{0xff, 0xfe})
	for _, u := range utf16.Encode([]rune(text)) {
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	cmd := exec.Command("clip")
	cmd.Stdin = &b
	return cmd.Run()
}

// menuLabel escapes a label for a Win32 menu, where "&" marks an access key.
func menuLabel(s string) string { return strings.ReplaceAll(s, "&", "&&") }
