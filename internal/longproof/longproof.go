// Package longproof keeps the long proofs (the ceilings, the soak's smoke
// run, the hostile files, live equals replay, a real Prometheus, Wine, the
// release build) out of `go test ./...`, which they would slow several
// times over on two cores: `go test -tags proofs` and any run in CI
// (CI=true) run them.
package longproof

import (
	"os"
	"testing"
)

var asked = false // true under -tags proofs (proofs.go)

// Skip skips t unless the long proofs were asked for.
func Skip(t testing.TB) {
	t.Helper()
	if !asked && os.Getenv("CI") != "true" {
		t.Skip("a long proof: go test -tags proofs runs it (CI always does)")
	}
}
