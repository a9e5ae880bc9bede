package setup

import (
	"bytes"
	"testing"
)

// FuzzApply: the settings editor never panics, and a file it accepts
// comes out as JSON with every other member as it was and statusLine
// running runway statusline (the old command after --then); Remove takes
// it out again. Seeds: testdata/fuzz/FuzzApply (the shapes of
// setup_test.go and the refused ones).
func FuzzApply(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _, _ = Remove(in, "runway")
		out, o, old, err := Apply(in, "runway")
		if err != nil {
			if out != nil {
				t.Fatal("output with an error")
			}
			return
		}
		if o == Unchanged {
			if !bytes.Equal(out, in) || !isRunway(Command(in), "runway") {
				t.Fatalf("unchanged, but %q → %q", in, out)
			}
			return
		}
		checkApplied(t, in, out, "runway")
		if again, o2, _, err := Apply(out, "runway"); err != nil || o2 != Unchanged || !bytes.Equal(again, out) {
			t.Fatalf("second run: %v %v", o2, err)
		}
		back, ro, err := Remove(out, "runway")
		if err != nil || ro == Unchanged {
			t.Fatalf("remove: %v %v", ro, err)
		}
		if Command(back) != old && !(o == Added && Command(back) == "") {
			t.Fatalf("remove gave command %q, want %q", Command(back), old)
		}
	})
}
