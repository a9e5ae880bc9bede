package setup

import "strings"

// shellQuote is s as one single-quoted shell word: Claude Code runs the
// command with a shell, and runway hands --then's text to one.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// programWord is path as a command's first word, quoted when a shell would
// read it otherwise.
func programWord(path string) string {
	if path != "" && strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+:@%,=-") == "" && path[0] != '~' && path[0] != '=' {
		return path
	}
	return shellQuote(path)
}

// word is one shell word as written and as the shell reads it.
type word struct{ raw, val string }

// shellWords splits a command as a POSIX shell quotes it; operators are not
// told apart (setup never writes one). ok is false for an open quote.
func shellWords(s string) (words []word, ok bool) {
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++
		}
		if i >= len(s) {
			return words, true
		}
		start := i
		var val strings.Builder
		for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
			switch c := s[i]; c {
			case '\'':
				end := strings.IndexByte(s[i+1:], '\'')
				if end < 0 {
					return nil, false
				}
				val.WriteString(s[i+1 : i+1+end])
				i += end + 2
			case '"':
				i++
				for ; i < len(s) && s[i] != '"'; i++ {
					if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
						i++
					}
					val.WriteByte(s[i])
				}
				if i >= len(s) {
					return nil, false
				}
				i++
			case '\\':
				if i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
				i++
			default:
				val.WriteByte(c)
				i++
			}
		}
		words = append(words, word{raw: s[start:i], val: val.String()})
	}
}

// isRunway: the command runs runway statusline (any path, any flags), named
// runway* or by the program word setup writes for this binary.
func isRunway(command, program string) bool {
	w, ok := shellWords(command)
	if !ok || len(w) < 2 || w[1].val != "statusline" {
		return false
	}
	return w[0].raw == program || strings.HasPrefix(w[0].val[strings.LastIndexAny(w[0].val, `/\`)+1:], "runway")
}

// parseOurs reads "PROGRAM statusline" or "PROGRAM statusline --then 'OLD'"
// (OLD as shellQuote quotes it), the commands setup writes.
func parseOurs(command, self string) (program, old string, chained, ours bool) {
	if !isRunway(command, self) {
		return "", "", false, false
	}
	w, _ := shellWords(command)
	switch {
	case len(w) == 2:
		return w[0].raw, "", false, true
	case len(w) == 4 && w[2].raw == "--then" && w[3].raw == shellQuote(w[3].val):
		return w[0].raw, w[3].val, true, true
	}
	return "", "", false, false
}
