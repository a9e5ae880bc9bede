package metrics

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLabelEscaping: any label value, HELP and value read back by
// Prometheus's parser as they went in (non-UTF-8 as U+FFFD), never breaking
// out of the label; the seeds are what a session, project or host can hold.
func FuzzLabelEscaping(f *testing.F) {
	f.Add("devbox", "Help.", 1.5)
	for _, v := range []string{"", `C:\Users\dev\repo`, `\\server\share\`, `a "quoted" name`, `"`, `\"`,
		`\n is not a newline`, "two\nlines\n", "\r\n", "tab\there", "nul\x00byte", "esc\x1b[31mred", "del\x7f",
		"café ✓ 日本語 🚀", "\u2028\u2029\ufeff", "} 1\nfake_metric 2", `x",evil="1`, "bad \xff\xfe utf-8 \xc3"} {
		f.Add(v, "Help with "+v, 1.0)
	}
	f.Fuzz(func(t *testing.T, value, help string, v float64) {
		text := string(AppendText(nil, []Family{
			{Name: "fuzz_total", Help: help, Type: Counter, Samples: []Sample{
				{Labels: []Label{{"value", value}, {"b", "after"}}, Value: v},
				{Labels: []Label{{"value", "other"}}, Value: 1},
			}},
		}))
		fams := parse(t, text)
		fam := fams["fuzz_total"]
		if len(fams) != 1 || fam == nil || len(fam.Metric) != 2 {
			t.Fatalf("%d families: %q", len(fams), text)
		}
		want := strings.ToValidUTF8(value, string(utf8.RuneError))
		// The format has no escape for blanks after the name: a HELP text's
		// leading blanks and tabs are not read back (runway's never has any).
		if got := strings.TrimLeft(strings.ToValidUTF8(help, string(utf8.RuneError)), " \t"); fam.GetHelp() != got {
			t.Errorf("help %q came back %q", help, fam.GetHelp())
		}
		found := false
		for _, m := range fam.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["b"] != "after" {
				continue
			}
			found = true
			if len(labels) != 2 || labels["value"] != want {
				t.Errorf("label %q came back %q", value, labels)
			}
			got := m.GetCounter().GetValue()
			if math.Float64bits(got) != math.Float64bits(v) && !(math.IsNaN(got) && math.IsNaN(v)) {
				t.Errorf("value %v came back %v", v, got)
			}
		}
		if !found {
			t.Errorf("the sample of %q is lost: %q", value, text)
		}
	})
}
