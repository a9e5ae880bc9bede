package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// fakeDist writes a dist folder as GoReleaser leaves it after a release: the
// version, and a binary per target (macOS as the universal binary).
func fakeDist(t *testing.T, targets ...string) string {
	t.Helper()
	root := t.TempDir()
	dist := filepath.Join(root, "dist")
	var arts []map[string]any
	for _, target := range targets {
		goos, goarch, _ := strings.Cut(target, "/")
		name := "runway"
		if goos == "windows" {
			name = "runway.exe"
		}
		rel := filepath.Join("dist", "runway_"+goos+"_"+goarch, name)
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, rel), []byte("binary "+target), 0o644); err != nil {
			t.Fatal(err)
		}
		arts = append(arts, map[string]any{"name": name, "path": rel, "goos": goos, "goarch": goarch, "type": "Binary"},
			map[string]any{"name": "runway.tar.gz", "path": "dist/runway.tar.gz", "goos": goos, "goarch": goarch, "type": "Archive"})
	}
	writeJSON(t, filepath.Join(dist, "artifacts.json"), arts)
	writeJSON(t, filepath.Join(dist, "metadata.json"), map[string]any{"project_name": "runway", "version": "1.4.2", "tag": "v1.4.2"})
	return dist
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// executable: npm pack keeps the exec bit the package folder has; Windows
// has no such bit to check.
func executable(fi os.FileInfo) bool {
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}

type manifest struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	OS                   []string          `json:"os"`
	CPU                  []string          `json:"cpu"`
	Bin                  map[string]string `json:"bin"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

func readManifest(t *testing.T, dir string) manifest {
	t.Helper()
	var m manifest
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPackagesOfARelease: every system gets its package with the release's
// version, npm's os and cpu, and its binary executable; the launcher names
// each of them at that same version.
func TestPackagesOfARelease(t *testing.T) {
	dist := fakeDist(t, "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64", "darwin/all")
	out := filepath.Join(t.TempDir(), "npm")
	made, err := run(dist, "../../npm", out, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 7 || filepath.Base(made[6]) != "runway" {
		t.Fatalf("made %v, want six systems then the launcher", made)
	}
	want := map[string]struct{ os, cpu, exe, from string }{
		"runway-linux-x64":    {"linux", "x64", "runway", "binary linux/amd64"},
		"runway-linux-arm64":  {"linux", "arm64", "runway", "binary linux/arm64"},
		"runway-darwin-x64":   {"darwin", "x64", "runway", "binary darwin/all"},
		"runway-darwin-arm64": {"darwin", "arm64", "runway", "binary darwin/all"},
		"runway-win32-x64":    {"win32", "x64", "runway.exe", "binary windows/amd64"},
		"runway-win32-arm64":  {"win32", "arm64", "runway.exe", "binary windows/arm64"},
	}
	for dir, w := range want {
		m := readManifest(t, filepath.Join(out, dir))
		if m.Name != "@agentrunway/"+dir || m.Version != "1.4.2" || !reflect.DeepEqual(m.OS, []string{w.os}) || !reflect.DeepEqual(m.CPU, []string{w.cpu}) {
			t.Errorf("%s: package.json %+v", dir, m)
		}
		if len(m.Bin) != 0 {
			t.Errorf("%s declares bin %v: only the launcher may put runway on PATH", dir, m.Bin)
		}
		bin := filepath.Join(out, dir, "bin", w.exe)
		b, err := os.ReadFile(bin)
		if err != nil || string(b) != w.from {
			t.Errorf("%s: binary %q, %v; want %q", dir, b, err, w.from)
		}
		if fi, err := os.Stat(bin); err != nil || !executable(fi) {
			t.Errorf("%s: binary not executable (%v, %v)", dir, fi.Mode(), err)
		}
	}
	m := readManifest(t, filepath.Join(out, "runway"))
	if m.Name != "@agentrunway/runway" || m.Version != "1.4.2" || m.Bin["runway"] != "bin/runway.js" {
		t.Errorf("launcher package.json %+v", m)
	}
	var deps []string
	for name, v := range m.OptionalDependencies {
		deps = append(deps, name)
		if v != "1.4.2" {
			t.Errorf("launcher wants %s@%s, the release is 1.4.2", name, v)
		}
	}
	sort.Strings(deps)
	if !reflect.DeepEqual(deps, names()) {
		t.Errorf("launcher's optional dependencies %v, want %v", deps, names())
	}
	if fi, err := os.Stat(filepath.Join(out, "runway", "bin", "runway.js")); err != nil || !executable(fi) {
		t.Errorf("launcher not executable: %v", err)
	}
}

// TestMissingSystemIsRefused: a release must carry every package the
// launcher names (else npm installs a launcher with nothing to run); a
// snapshot without macOS asks for -partial.
func TestMissingSystemIsRefused(t *testing.T) {
	dist := fakeDist(t, "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64")
	out := filepath.Join(t.TempDir(), "npm")
	if _, err := run(dist, "../../npm", out, false); err == nil || !strings.Contains(err.Error(), "darwin/all") {
		t.Fatalf("without macOS: %v, want the missing darwin/all named", err)
	}
	made, err := run(dist, "../../npm", out, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 5 {
		t.Errorf("-partial made %v, want four systems and the launcher", made)
	}
}

// TestNoDist: before a release there is nothing to package, said plainly.
func TestNoDist(t *testing.T) {
	_, err := run(filepath.Join(t.TempDir(), "dist"), "../../npm", t.TempDir(), true)
	if err == nil || !strings.Contains(err.Error(), "run goreleaser release") {
		t.Fatalf("got %v", err)
	}
}
