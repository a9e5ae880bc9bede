package otlp

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestOneReceiverPerStateFolder: two receivers on one state folder each
// saved their own sessions over the other's; the second is refused, told
// who holds it, and takes it once the first let go.
func TestOneReceiverPerStateFolder(t *testing.T) {
	dir := t.TempDir()
	release, err := LockStore(dir, "127.0.0.1:4318")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockStore(dir, "127.0.0.1:4319")
	want := fmt.Sprintf("pid %d, listening on 127.0.0.1:4318", os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "RUNWAY_STATE_DIR") {
		t.Fatalf("second receiver: %v, want a refusal naming %q", err, want)
	}
	release()
	again, err := LockStore(dir, "127.0.0.1:4319")
	if err != nil {
		t.Fatalf("after the first let go: %v", err)
	}
	again()
}
