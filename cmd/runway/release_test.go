package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentrunway/runway/internal/longproof"
)

// TestReleaseVersion: the release sets main.version with -ldflags (see
// .goreleaser.yaml) and `runway version` reports it.
func TestReleaseVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds runway")
	}
	longproof.Skip(t)
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
