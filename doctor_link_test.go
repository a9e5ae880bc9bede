package runway

import (
	"context"
	"time"

	"github.com/agentrunway/runway/quota"
)

// The doctor lives in package doctor, which imports this one, so a test of
// this package cannot import it. The scenarios here that end with what
// doctor says (a fault set up through the engine, the tray, the state
// folder) reach it through runDoctor and renderDoctor, which
// doctor_run_test.go (package runway_test, same test binary) sets to
// doctor.Run and doctor.Render. Check, Section and DoctorOptions mirror
// doctor's types field for field.

// Check is a doctor.Check.
type Check struct {
	Name   string `json:"name"`
	State  string `json:"state"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Section is a doctor.Section.
type Section struct {
	Title  string  `json:"title"`
	Checks []Check `json:"checks"`
}

// DoctorOptions are the doctor.Options these tests set.
type DoctorOptions struct {
	Now      func() time.Time
	AskCodex bool
	Sources  []quota.SourceState
}

// Check states, as doctor's.
const (
	CheckOK      = "ok"
	CheckInfo    = "info"
	CheckWarn    = "warn"
	CheckProblem = "problem"
)

var (
	RunDoctorForTest    func(context.Context, Env, DoctorOptions) []Section
	RenderDoctorForTest func([]Section) string
)

// Doctor is doctor.Run(ctx, e, o).
func (e Env) Doctor(ctx context.Context, o DoctorOptions) []Section {
	return RunDoctorForTest(ctx, e, o)
}

// RenderDoctor is doctor.Render.
func RenderDoctor(s []Section) string { return RenderDoctorForTest(s) }
