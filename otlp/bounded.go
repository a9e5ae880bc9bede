package otlp

import (
	"cmp"
	"maps"
	"slices"
)

// bounded is one kind of record a Store holds (responses, prompts,
// cumulative series), bounded in count and in the bytes its lines take in
// the saved file: a sender, careless or hostile, can fill it but never
// grow the process or the file past them. Past either bound the oldest
// records go first.
type bounded[K comparable, V any] struct {
	m         map[K]V
	bytes     int // the records' lines, as saved
	most      int
	mostBytes int
	line      func(K, V) int   // bytes of a record's line in the file
	at        func(K, V) int64 // a record's age, for the oldest first
	dropped   int64            // records ever dropped for the bounds
}

func newBounded[K comparable, V any](most, mostBytes int, line func(K, V) int, at func(K, V) int64) bounded[K, V] {
	return bounded[K, V]{m: map[K]V{}, most: most, mostBytes: mostBytes, line: line, at: at}
}

func (b *bounded[K, V]) get(k K) (V, bool) {
	v, ok := b.m[k]
	return v, ok
}

func (b *bounded[K, V]) len() int { return len(b.m) }

// set keeps v under k, and drops the oldest when that passes a bound: a
// request of 100,000 records never holds more than the bounds either.
func (b *bounded[K, V]) set(k K, v V) {
	if old, had := b.m[k]; had {
		b.bytes -= b.line(k, old)
	}
	b.m[k] = v
	b.bytes += b.line(k, v)
	b.trim()
}

// deleteFunc deletes the records del says, and reports whether it did.
func (b *bounded[K, V]) deleteFunc(del func(K, V) bool) bool {
	n := len(b.m)
	maps.DeleteFunc(b.m, func(k K, v V) bool {
		if del(k, v) {
			b.bytes -= b.line(k, v)
			return true
		}
		return false
	})
	return len(b.m) != n
}

// trim drops the oldest records when past a bound, down to 90 % of both
// so the sort is paid rarely; it returns how many it dropped (a map built
// by hand in a test, or bounds lowered, are trimmed as well).
func (b *bounded[K, V]) trim() int {
	if len(b.m) <= b.most && b.bytes <= b.mostBytes {
		return 0
	}
	type aged struct {
		at  int64
		key K
	}
	all := make([]aged, 0, len(b.m))
	for k, v := range b.m {
		all = append(all, aged{b.at(k, v), k})
	}
	slices.SortFunc(all, func(x, y aged) int { return cmp.Compare(x.at, y.at) })
	n := 0
	for _, x := range all {
		if len(b.m) <= b.most*9/10 && b.bytes <= b.mostBytes*9/10 {
			break
		}
		b.bytes -= b.line(x.key, b.m[x.key])
		delete(b.m, x.key)
		n++
	}
	b.dropped += int64(n)
	return n
}
