package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestReleaseVersion: the release sets main.version with -ldflags (see
// .goreleaser.yaml) and `runway version` reports it.
func TestReleaseVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds runway")
	}
	longProof(t)
	bin := filepath.Join(t.TempDir(), "runway")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v1.4.2", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "runway v1.4.2\n" {
		t.Errorf("runway version printed %q", out)
	}
}

// longProof skips t unless the long proofs were asked for: -tags proofs, or
// any run in CI (CI=true), as in the root package.
func longProof(t *testing.T) {
	t.Helper()
	if !longProofs && os.Getenv("CI") != "true" {
		t.Skip("a long proof: go test -tags proofs runs it (CI always does)")
	}
}
