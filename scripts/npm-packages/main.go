// Command npm-packages makes the npm packages of a release from the binaries
// GoReleaser built: @agentrunway/runway (the launcher npm puts on PATH) and
// one @agentrunway/runway-<os>-<cpu> per system, which npm picks by its os
// and cpu fields. Each package folder is ready for `npm pack` or `npm publish`.
//
//	go run ./scripts/npm-packages [-partial] [-dist dist] [-templates npm] [-out dist/npm]
//
// The version is the release's (dist/metadata.json), so the launcher's
// optional dependencies name exactly the binaries built with it.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"text/template"
)

// platform is one npm os/cpu pair and the GoReleaser build that serves it.
type platform struct {
	OS, CPU      string // npm's names (process.platform, process.arch)
	Goos, Goarch string // the build's; darwin's is the universal binary, "all"
	Exe          string // the binary's name in the package's bin/
}

// platforms are every package the launcher names; macOS's two both carry the
// universal binary.
var platforms = []platform{
	{"darwin", "arm64", "darwin", "all", "runway"},
	{"darwin", "x64", "darwin", "all", "runway"},
	{"linux", "arm64", "linux", "arm64", "runway"},
	{"linux", "x64", "linux", "amd64", "runway"},
	{"win32", "arm64", "windows", "arm64", "runway.exe"},
	{"win32", "x64", "windows", "amd64", "runway.exe"},
}

type artifact struct {
	Path   string `json:"path"`
	Goos   string `json:"goos"`
	Goarch string `json:"goarch"`
	Type   string `json:"type"`
}

func main() {
	dist := flag.String("dist", "dist", "GoReleaser's dist folder (artifacts.json, metadata.json)")
	templates := flag.String("templates", "npm", "the package templates")
	out := flag.String("out", "", "where the package folders go (default DIST/npm)")
	partial := flag.Bool("partial", false, "make the packages of the systems built, not fail on a missing one (a snapshot without macOS)")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join(*dist, "npm")
	}
	made, err := run(*dist, *templates, *out, *partial)
	if err != nil {
		fmt.Fprintln(os.Stderr, "npm-packages:", err)
		os.Exit(1)
	}
	for _, dir := range made {
		fmt.Println(dir)
	}
}

// run writes the package folders under out and returns them, the
// per-system ones first (publish them before the launcher that names them).
func run(dist, templates, out string, partial bool) ([]string, error) {
	version, binaries, err := readDist(dist)
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(out); err != nil {
		return nil, err
	}
	var made []string
	for _, p := range platforms {
		bin, ok := binaries[p.Goos+"/"+p.Goarch]
		if !ok {
			if partial {
				continue
			}
			return nil, fmt.Errorf("no %s/%s binary in %s/artifacts.json for %s-%s (-partial makes the others)", p.Goos, p.Goarch, dist, p.OS, p.CPU)
		}
		dir := filepath.Join(out, "runway-"+p.OS+"-"+p.CPU)
		data := map[string]string{"Version": version, "OS": p.OS, "CPU": p.CPU}
		if err := expand(filepath.Join(templates, "platform", "package.json.tmpl"), filepath.Join(dir, "package.json"), data); err != nil {
			return nil, err
		}
		if err := copyFile(bin, filepath.Join(dir, "bin", p.Exe), 0o755); err != nil {
			return nil, err
		}
		made = append(made, dir)
	}
	if len(made) == 0 {
		return nil, fmt.Errorf("no binary for any npm system in %s/artifacts.json", dist)
	}
	dir := filepath.Join(out, "runway")
	if err := expand(filepath.Join(templates, "runway", "package.json.tmpl"), filepath.Join(dir, "package.json"), map[string]string{"Version": version}); err != nil {
		return nil, err
	}
	if err := copyFile(filepath.Join(templates, "runway", "bin", "runway.js"), filepath.Join(dir, "bin", "runway.js"), 0o755); err != nil {
		return nil, err
	}
	if err := copyFile(filepath.Join(templates, "runway", "README.md"), filepath.Join(dir, "README.md"), 0o644); err != nil {
		return nil, err
	}
	return append(made, dir), nil
}

// readDist returns the release version and the built binaries by
// "goos/goarch", their paths as GoReleaser wrote them (relative to the
// folder holding dist).
func readDist(dist string) (string, map[string]string, error) {
	var meta struct {
		Version string `json:"version"`
	}
	if err := readJSON(filepath.Join(dist, "metadata.json"), &meta); err != nil {
		return "", nil, err
	}
	if meta.Version == "" {
		return "", nil, fmt.Errorf("%s/metadata.json has no version", dist)
	}
	var arts []artifact
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &arts); err != nil {
		return "", nil, err
	}
	binaries := map[string]string{}
	for _, a := range arts {
		if a.Type != "Binary" {
			continue
		}
		key := a.Goos + "/" + a.Goarch
		path := a.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(filepath.Clean(dist)), path)
		}
		if prev, ok := binaries[key]; ok && prev != path {
			return "", nil, fmt.Errorf("two %s binaries in %s/artifacts.json: %s and %s", key, dist, prev, path)
		}
		binaries[key] = path
	}
	return meta.Version, binaries, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s is missing: run goreleaser release (or --snapshot) first", path)
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// expand writes the template at src, filled with data, to dst; it must come
// out as JSON (a package.json).
func expand(src, dst string, data map[string]string) error {
	t, err := template.New(filepath.Base(src)).Option("missingkey=error").ParseFiles(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if err := t.Execute(f, data); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", src, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		return err
	}
	if !json.Valid(b) {
		return fmt.Errorf("%s does not make valid JSON", src)
	}
	return nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode) // the umask may have taken the exec bit
}

// names is the sorted package names of platforms (for the tests).
func names() []string {
	var n []string
	for _, p := range platforms {
		n = append(n, "@agentrunway/runway-"+p.OS+"-"+p.CPU)
	}
	sort.Strings(n)
	return n
}
