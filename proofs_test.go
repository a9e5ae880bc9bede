package runway

import (
	"os"
	"testing"
)

// The long proofs — the ceilings, the soak's smoke run, the hostile files
// (lines of 50 and 70 MB), live equals replay over 80 played minutes — take
// most of the package's time. `go test ./...` leaves them out so that it
// answers in well under a minute on two cores; `go test -tags proofs ./...`
// runs them, and .ci/run always does.

// longProof skips t unless the long proofs were asked for. In CI (CI=true)
// a run without them fails instead: CI must never pass without its proofs.
func longProof(t *testing.T) {
	t.Helper()
	if longProofs {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("a long proof left out in CI: run go test -tags proofs (as .ci/run does)")
	}
	t.Skip("a long proof: go test -tags proofs runs it")
}
