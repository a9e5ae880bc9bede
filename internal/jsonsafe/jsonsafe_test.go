package jsonsafe

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestValid(t *testing.T) {
	deep := strings.Repeat("[", MaxNesting+1) + strings.Repeat("]", MaxNesting+1)
	ok := strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting)
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`{"a":[1,{"b":"c"}]}`, true},
		{ok, true},
		{deep, false},
		{`{"s":"` + strings.Repeat("[", 5000) + `"}`, true}, // brackets inside a string do not nest
		{`{"s":"\"[[["}`, true},
		{`{"a":`, false},
		{"\x00", false},
	} {
		if got := Valid([]byte(c.in)); got != c.want {
			t.Errorf("Valid(%.30q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// A few MB of brackets must be refused without a deep recursion.
func TestValidHugeNesting(t *testing.T) {
	b := []byte(strings.Repeat("[", 8<<20))
	if Valid(b) {
		t.Fatal("8 MB of brackets is valid?")
	}
}

func TestEpoch(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{1764000000, "2025-11-24T16:00:00Z"},
		{1764000000.5, "2025-11-24T16:00:00.5Z"},
		{1764000000123, "2025-11-24T16:00:00.123Z"}, // milliseconds, as Codex writes some fields
		{0, ""}, {-1, ""}, {1e15, ""}, {math.NaN(), ""}, {math.Inf(1), ""},
	} {
		got := Epoch(c.in)
		if s := got.Format(time.RFC3339Nano); c.want == "" && !got.IsZero() || c.want != "" && s != c.want {
			t.Errorf("Epoch(%v) = %v, want %q", c.in, got, c.want)
		}
	}
}

func TestTooDeep(t *testing.T) {
	for _, c := range []struct {
		line string
		deep bool
	}{
		{`{"a":[1,{"b":2}]}`, false},
		{`{"a":"` + strings.Repeat("[", 10000) + `"}`, false},
		{`{"a":"x\"` + strings.Repeat("[", 10000) + `"}`, false},
		{`{"a":"x\\"` + strings.Repeat("[", 10000) + `"}`, true},
		{`{"a":` + strings.Repeat("[", MaxNesting-1) + strings.Repeat("]", MaxNesting-1) + `}`, false},
		{`{"a":` + strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting) + `}`, true},
		{`{"a":"unterminated`, false},
	} {
		if got := TooDeep([]byte(c.line)); got != c.deep {
			t.Errorf("TooDeep(%.40q…) = %v, want %v", c.line, got, c.deep)
		}
	}
}
