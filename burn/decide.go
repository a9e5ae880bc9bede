package burn

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	// keyGrid rounds a reset in a notice key; keyMatch: two keys' resets this
	// close name one instance (resets jitter, instances are hours apart).
	keyGrid  = 10 * time.Minute
	keyMatch = 10 * time.Minute
	// memoryKeep is how long a sent notice is remembered: past the longest window.
	memoryKeep = 8 * 24 * time.Hour
	// resetNews: a reset older than this is not worth a notice any more.
	resetNews = time.Hour
)

// Decide says which notices to send for snapshot s, given what mem says was
// already sent, most urgent first, and returns the memory to persist
// (docs/burn-model.md, "Notifications").
func Decide(s Snapshot, mem NoticeMemory, cfg Config) ([]Notice, NoticeMemory) {
	cfg = cfg.withDefaults()
	now := s.At.UTC()
	recent := func(m map[string]time.Time) map[string]time.Time {
		out := map[string]time.Time{}
		for k, t := range m {
			if now.Sub(t) <= memoryKeep {
				out[k] = t
			}
		}
		return out
	}
	next := NoticeMemory{Sent: recent(mem.Sent), Calm: recent(mem.Calm)}

	buckets := slices.Clone(cfg.BurningFast)
	slices.Sort(buckets)

	var out []Notice
	for _, p := range s.Providers {
		for i, w := range []*WindowStatus{p.Window, p.Weekly} {
			if w == nil || i == 1 && p.Window != nil && p.Window.Class == w.Class {
				continue
			}
			d := decision{s: s, p: p, w: w, active: i == 0, mem: &next, now: now, cfg: cfg, buckets: buckets}
			if n, ok := d.live(); ok {
				out = append(out, n)
			}
			if cfg.NotifyReset {
				out = append(out, d.resets()...)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Notice) int {
		return cmp.Or(
			-cmp.Compare(boolInt(a.Critical), boolInt(b.Critical)),
			cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)),
			cmp.Compare(a.UrgencyMinutes, b.UrgencyMinutes),
			compareProviders(a.Provider, b.Provider),
			cmp.Compare(a.WindowMinutes, b.WindowMinutes),
		)
	})
	return out, next
}

type decision struct {
	s       Snapshot
	p       ProviderStatus
	w       *WindowStatus
	active  bool
	mem     *NoticeMemory
	now     time.Time
	cfg     Config
	buckets []int // ascending
}

// live decides the most urgent unsent notice for a window that has not reset.
func (d decision) live() (Notice, bool) {
	w := d.w
	if w.Reset || w.ResetsAt == nil || w.State == NoData || w.State == "" {
		return Notice{}, false
	}
	k := noticeKey{provider: d.p.Provider, account: d.p.Account, class: w.Class, reset: *w.ResetsAt}
	inst := k.instance()
	exhausted := w.State == Exhausted || w.UsedPercent >= 100
	low := 100-w.UsedPercent <= d.cfg.LowPercent
	bucket := 0
	// A run-out resting on two guesses, or a settling figure, never
	// interrupts the user; low and exhausted are facts and do.
	guessed := w.ResetsAtEstimated && w.Burn.Method == MethodAverage
	if w.RunoutAt != nil && !exhausted && !guessed && !w.Burn.Settling {
		left := w.RunoutAt.Sub(d.now).Minutes()
		for _, b := range d.buckets {
			if left <= float64(b) {
				bucket = b
				break
			}
		}
	}

	// Re-arm the burning-fast buckets after a calm spell.
	if w.RunoutAt == nil && !exhausted {
		calm, ok := d.mem.Calm[inst]
		if !ok {
			d.mem.Calm[inst] = d.now
		} else if d.now.Sub(calm) >= d.cfg.Rearm {
			for key := range d.mem.Sent {
				if o, ok := parseKey(key); ok && o.kind == NoticeBurningFast && o.sameInstance(k) {
					delete(d.mem.Sent, key)
				}
			}
		}
	} else {
		delete(d.mem.Calm, inst)
	}

	with := func(kind NoticeKind, b int) noticeKey { k.kind, k.bucket = kind, b; return k }
	switch {
	case exhausted:
		if d.sent(with(NoticeExhausted, 0)) {
			return Notice{}, false
		}
		d.mark(with(NoticeExhausted, 0), with(NoticeLow, 0))
		for _, b := range d.buckets {
			d.mark(with(NoticeBurningFast, b))
		}
		return d.notice(with(NoticeExhausted, 0), true), true
	case bucket > 0 && !d.sent(with(NoticeBurningFast, bucket)):
		for _, b := range d.buckets {
			if b >= bucket {
				d.mark(with(NoticeBurningFast, b))
			}
		}
		if low {
			d.mark(with(NoticeLow, 0))
		}
		return d.notice(with(NoticeBurningFast, bucket), bucket == d.buckets[0]), true
	case low && !d.sent(with(NoticeLow, 0)):
		d.mark(with(NoticeLow, 0))
		return d.notice(with(NoticeLow, 0), false), true
	}
	return Notice{}, false
}

// resets decides the "reset" notices of a window: one per earlier instance
// that was low or exhausted and reset within the last hour.
func (d decision) resets() []Notice {
	var out []Notice
	var cur *noticeKey
	if !d.w.Reset && d.w.ResetsAt != nil {
		cur = &noticeKey{provider: d.p.Provider, account: d.p.Account, class: d.w.Class, reset: *d.w.ResetsAt}
	}
	done := map[string]bool{}
	for _, key := range slices.Sorted(maps.Keys(d.mem.Sent)) {
		o, ok := parseKey(key)
		if !ok || o.provider != d.p.Provider || o.account != d.p.Account || o.class != d.w.Class ||
			o.kind != NoticeLow && o.kind != NoticeExhausted ||
			o.reset.After(d.now) || d.now.Sub(o.reset) > resetNews || done[o.instance()] ||
			cur != nil && o.sameInstance(*cur) {
			continue
		}
		done[o.instance()] = true
		o.kind, o.bucket = NoticeReset, 0
		if d.sent(o) {
			continue
		}
		d.mark(o)
		n := d.notice(o, false)
		if d.w.Reset || d.w.ResetsAt == nil {
			n.UsedPercent = 0
		}
		n.RunoutAt, n.Top = nil, nil
		out = append(out, n)
	}
	return out
}

func (d decision) notice(k noticeKey, critical bool) Notice {
	w := d.w
	n := Notice{
		Kind:           k.kind,
		Provider:       d.p.Provider,
		Window:         w.Class,
		WindowMinutes:  w.Minutes,
		UsedPercent:    finite(w.UsedPercent),
		ResetsAt:       timePtr(k.reset),
		RunoutAt:       utcPtr(w.RunoutAt),
		Burn:           w.Burn.normal(),
		UrgencyMinutes: k.bucket,
		Critical:       critical,
		Key:            k.String(),
		Account:        d.p.Account,
		AccountLabel:   d.p.AccountLabel,
	}
	if k.kind != NoticeReset && w.ResetsAt != nil {
		n.ResetsAt = utcPtr(w.ResetsAt)
	}
	// The session figures are the active window's.
	if d.active {
		for _, x := range d.s.SessionsOfStatus(d.p) {
			if x.QuotaMinutesPerHour > 0 {
				x := x.normal()
				n.Top = &x
				break
			}
		}
	}
	return n
}

// sent says whether mem holds k, allowing the reset to have jittered.
func (d decision) sent(k noticeKey) bool {
	if _, ok := d.mem.Sent[k.String()]; ok {
		return true
	}
	for key := range d.mem.Sent {
		if o, ok := parseKey(key); ok && o.kind == k.kind && o.bucket == k.bucket && o.sameInstance(k) {
			return true
		}
	}
	return false
}

func (d decision) mark(ks ...noticeKey) {
	for _, k := range ks {
		if !d.sent(k) {
			d.mem.Sent[k.String()] = d.now
		}
	}
}

// A noticeKey names a notice, written "claude[@login]/5h/2026-11-20T15:00:00Z/burning_fast/30".
type noticeKey struct {
	provider Provider
	account  string
	class    WindowClass
	reset    time.Time
	kind     NoticeKind
	bucket   int
}

func (k noticeKey) instance() string {
	scope := string(k.provider)
	if k.account != "" {
		scope += "@" + k.account
	}
	return fmt.Sprintf("%s/%s/%s", scope, k.class, k.reset.UTC().Round(keyGrid).Format(time.RFC3339))
}

func (k noticeKey) String() string {
	s := k.instance() + "/" + string(k.kind)
	if k.bucket > 0 {
		s += "/" + strconv.Itoa(k.bucket)
	}
	return s
}

func (k noticeKey) sameInstance(o noticeKey) bool {
	d := k.reset.Sub(o.reset)
	return k.provider == o.provider && k.account == o.account && k.class == o.class && d <= keyMatch && d >= -keyMatch
}

func parseKey(s string) (noticeKey, bool) {
	f := strings.Split(s, "/")
	if len(f) != 4 && len(f) != 5 {
		return noticeKey{}, false
	}
	reset, err := time.Parse(time.RFC3339, f[2])
	if err != nil {
		return noticeKey{}, false
	}
	scope, account, _ := strings.Cut(f[0], "@")
	k := noticeKey{provider: Provider(scope), account: account, class: WindowClass(f[1]), reset: reset, kind: NoticeKind(f[3])}
	if len(f) == 5 {
		if k.bucket, err = strconv.Atoi(f[4]); err != nil {
			return noticeKey{}, false
		}
	}
	return k, true
}

func kindRank(k NoticeKind) int {
	switch k {
	case NoticeExhausted:
		return 0
	case NoticeBurningFast:
		return 1
	case NoticeLow:
		return 2
	}
	return 3
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
