package runway

import (
	"os"
	"testing"
)

// The long proofs — the ceilings, the soak's smoke run, the hostile files
// (lines of 50 and 70 MB), live equals replay over 80 played minutes — take
// most of the package's time. `go test ./...` leaves them out so that it
// answers in well under a minute on two cores; `go test -tags proofs ./...`
// runs them, and so does any run in CI (CI=true, as .ci/run and every CI
// service set it), so CI never passes without them.

// longProof skips t unless the long proofs were asked for.
func longProof(t *testing.T) {
	t.Helper()
	if !longProofs && os.Getenv("CI") != "true" {
		t.Skip("a long proof: go test -tags proofs runs it (CI always does)")
	}
}
