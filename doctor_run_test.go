package runway_test

import (
	"context"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/doctor"
	"github.com/agentrunway/runway/quota"
)

// doctor imports runway: the package's scenarios that end with what doctor
// says reach it through this hook, in the same test binary.
func init() {
	runway.DoctorTextForTest = func(ctx context.Context, e runway.Env, now func() time.Time, askCodex bool, sources []quota.SourceState) string {
		return doctor.Render(doctor.Run(ctx, e, doctor.Options{Now: now, AskCodex: askCodex, Sources: sources}))
	}
}
