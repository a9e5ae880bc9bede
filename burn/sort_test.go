package burn

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sortEvents orders as a stable sort by the same comparison does, for any
// events: groups, equal times, ties and cycles of every length.
func TestSortEventsIsAStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for n := range 300 {
		evs := make([]Event, n)
		for i := range evs {
			evs[i] = Event{Provider: Provider([]string{"claude", "codex"}[rng.IntN(2)]), Session: fmt.Sprint(rng.IntN(5)),
				Key: fmt.Sprint(rng.IntN(4)), At: base.Add(time.Duration(rng.IntN(20)) * time.Second), Weighted: float64(i)}
		}
		want := slices.Clone(evs)
		slices.SortStableFunc(want, func(a, b Event) int {
			return cmp.Or(cmp.Compare(a.Session, b.Session), a.At.Compare(b.At), cmp.Compare(a.Key, b.Key))
		})
		groups := map[string]int32{"0": 0, "1": 1, "2": 2, "3": 3, "4": 4}
		sortEvents(evs, func(e *Event) int32 { return groups[e.Session] }, func(a, b *Event) int { return cmp.Compare(a.Key, b.Key) })
		for i := range evs {
			if evs[i].Weighted != want[i].Weighted {
				t.Fatalf("n=%d: position %d holds event %v, want %v", n, i, evs[i].Weighted, want[i].Weighted)
			}
		}
	}
}
