package tail

import (
	"cmp"
	"errors"
	"io/fs"
	"slices"
	"strings"
)

// pathProblem is a path runway could not read (or chose not to follow),
// kept apart from other warnings so that many of one kind read as one.
type pathProblem struct {
	op, path, why string
	gone          bool // it went away between finding and reading: it hides no usage
}

func newProblem(op, path string, err error) pathProblem {
	err = unwrapPath(err)
	why := err.Error()
	if errors.Is(err, fs.ErrPermission) {
		why += " (runway reads as you: fix the owner or mode, or move such files out of the log folders)"
	}
	return pathProblem{op, path, why, errors.Is(err, fs.ErrNotExist)}
}

// groupAfter is how many problems of one kind are listed one by one;
// more are counted, with this many examples.
const groupAfter = 3

// problemWarnings says ps as warnings: each alone when few share an
// operation and a reason, else one warning with the count and examples.
func problemWarnings(ps []pathProblem) []string {
	slices.SortFunc(ps, func(a, b pathProblem) int {
		return cmp.Or(cmp.Compare(a.op, b.op), cmp.Compare(a.why, b.why), cmp.Compare(a.path, b.path))
	})
	ps = slices.Compact(ps)
	var out []string
	for len(ps) > 0 {
		n := 1
		for n < len(ps) && ps[n].op == ps[0].op && ps[n].why == ps[0].why {
			n++
		}
		group := ps[:n]
		ps = ps[n:]
		if n <= groupAfter {
			for _, p := range group {
				out = append(out, warnf("%s %s: %s", p.op, p.path, p.why))
			}
			continue
		}
		ex := make([]string, groupAfter)
		for i := range ex {
			ex[i] = group[i].path
		}
		out = append(out, warnf("%s %d paths: %s (%s and %d more)",
			group[0].op, n, group[0].why, strings.Join(ex, ", "), n-groupAfter))
	}
	return out
}
