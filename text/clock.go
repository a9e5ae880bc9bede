package text

import "time"

// Clock shows an instant in loc as every surface does: "15:04" on the day
// of now, "Mon 15:04" later within the week, "Jan 2 15:04" beyond or
// before (a run-out past midnight reads as tomorrow, never as earlier today).
func Clock(t, now time.Time, loc *time.Location) string {
	t, now = t.In(loc), now.In(loc)
	ty, tm, td := t.Date()
	ny, nm, nd := now.Date()
	switch {
	case now.IsZero() || (ty == ny && tm == nm && td == nd):
		return t.Format("15:04")
	case t.After(now) && t.Sub(now) < 6*24*time.Hour:
		return t.Format("Mon 15:04")
	}
	return t.Format("Jan 2 15:04")
}
