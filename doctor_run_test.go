package runway_test

import (
	"context"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/doctor"
)

// init links the root package's doctor scenarios to the doctor package
// (doctor_link_test.go says why they cannot import it).
func init() {
	runway.RunDoctorForTest = func(ctx context.Context, e runway.Env, o runway.DoctorOptions) []runway.Section {
		return fromDoctor(doctor.Run(ctx, e, doctor.Options{Now: o.Now, AskCodex: o.AskCodex, Sources: o.Sources}))
	}
	runway.RenderDoctorForTest = func(s []runway.Section) string { return doctor.Render(toDoctor(s)) }
}

func fromDoctor(in []doctor.Section) []runway.Section {
	out := make([]runway.Section, len(in))
	for i, s := range in {
		out[i].Title = s.Title
		for _, c := range s.Checks {
			out[i].Checks = append(out[i].Checks, runway.Check(c))
		}
	}
	return out
}

func toDoctor(in []runway.Section) []doctor.Section {
	out := make([]doctor.Section, len(in))
	for i, s := range in {
		out[i].Title = s.Title
		for _, c := range s.Checks {
			out[i].Checks = append(out[i].Checks, doctor.Check(c))
		}
	}
	return out
}
