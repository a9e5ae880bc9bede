package runway_test

import (
	"context"
	"encoding/json"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/doctor"
)

// init links the root package's doctor scenarios to the doctor package
// (doctor_link_test.go says why they cannot import it).
func init() {
	runway.RunDoctorForTest = func(ctx context.Context, e runway.Env, o runway.DoctorOptions) []runway.Section {
		return convert[[]runway.Section](doctor.Run(ctx, e, doctor.Options{Now: o.Now, AskCodex: o.AskCodex, Sources: o.Sources}))
	}
	runway.RenderDoctorForTest = func(s []runway.Section) string { return doctor.Render(convert[[]doctor.Section](s)) }
}

// convert carries sections between doctor's types and their mirror through
// their JSON form, which is the same: `runway doctor --json`.
func convert[T any](in any) T {
	var out T
	b, err := json.Marshal(in)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		panic(err)
	}
	return out
}
