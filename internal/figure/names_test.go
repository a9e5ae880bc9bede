package figure

import (
	"slices"
	"testing"

	"github.com/agentrunway/runway/burn"
)

func TestSessionNames(t *testing.T) {
	ss := []burn.SessionStatus{
		{ID: "3f6c2d1e-1111-4222-8333-944455556666", Project: "/home/ada/src/shop/"},
		{ID: "9a0b7c11-2222-4333-8444-555566667777", Project: "/home/ada/src/shop"},
		{ID: "5e55a1f0-0000-4000-8000-00000000c1a0", Project: `C:\Users\ada\src\app\`},
		{ID: "0c0dec0d-0000-4000-8000-00000000c0de", Project: ""},
		// Codex threads started within a minute share their first 8
		// characters: the last 8 tell them apart.
		{ID: "01a22fbe-b60f-7bd1-aa2c-eba102c65a58", Project: "/home/dev/src/demo"},
		{ID: "01a22fbe-6677-7013-89eb-364eb4b79819", Project: "/home/dev/src/demo"},
	}
	want := []string{"shop (3f6c2d1e)", "shop (9a0b7c11)", "app", "session 0c0dec0d", "demo (02c65a58)", "demo (b4b79819)"}
	if got := SessionNames(ss); !slices.Equal(got, want) {
		t.Errorf("SessionNames = %q\nwant            %q", got, want)
	}
	if got := SessionNames(ss[4:5]); got[0] != "demo" {
		t.Errorf("a lone session is named %q, want its project", got[0])
	}
}
