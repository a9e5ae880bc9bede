package otlp

import (
	"os/exec"
	"strings"
	"testing"
)

// The receiver is linked into every runway command, the statusline
// included: the collector's data packages, their JSON library and the
// protobuf runtime (which cost milliseconds of every start) stay out of
// it; tests may use them.
func TestLinksNoCollectorLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"go.opentelemetry.io/", "github.com/json-iterator/", "github.com/modern-go/", "google.golang.org/protobuf/", "github.com/prometheus/"} {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("otlp links %s", pkg)
			}
		}
	}
}
