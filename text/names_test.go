package text

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

func TestRemoteSessionsNameTheirHost(t *testing.T) {
	ss := []burn.SessionStatus{
		{ID: "3f6c2d1e-1111-4222-8333-944455556666", Project: "/home/ada/src/shop"},
		{ID: "9a0b7c11-2222-4333-8444-555566667777", Project: "/srv/shop", Host: "devbox"},
		{ID: "6f1c2b9e-0d1a-4c55-9a43-7be0b1b2c001", Host: "devbox"},
		{ID: "019a8b2e-5c3d-7e10-9f00-aa00bb11cc22", Project: "shop", Host: "buildbox"},
		{ID: "019a8b2e-aaaa-7e10-9f00-aa00bb11cc23", Project: "shop", Host: "buildbox"},
	}
	want := []string{"shop", "shop on devbox", "session 6f1c2b9e on devbox", "shop (bb11cc22) on buildbox", "shop (bb11cc23) on buildbox"}
	if got := SessionNames(ss); !slices.Equal(got, want) {
		t.Errorf("SessionNames = %q\nwant            %q", got, want)
	}
}

func TestProviderName(t *testing.T) {
	for _, c := range [][3]string{{"claude", "", "Claude"}, {"codex", "work", "Codex (work)"}, {"gemini", "", "Gemini"}, {"", "", "?"}} {
		if got := ProviderName(burn.Provider(c[0]), c[1]); got != c[2] {
			t.Errorf("ProviderName(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}
