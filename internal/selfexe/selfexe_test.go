package selfexe

import "testing"

func TestTemporary(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build1234567/b001/exe/runway":                            true,
		`C:\Users\ada\AppData\Local\Temp\go-build987\b001\exe\runway.exe`: true,
		"/home/ada/go/bin/runway":                                         false,
		"/home/ada/src/go-builder/runway":                                 false,
		`C:\Users\ada\go\bin\runway.exe`:                                  false,
		// go run since Go 1.24: the build cache, default or GOCACHE.
		"/home/ada/.cache/go-build/47/47918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d/runway":               true,
		"/Users/ada/Library/Caches/go-build/0a/0a918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d/runway":      true,
		`C:\Users\ada\AppData\Local\go-build\ff\ff918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d\runway.exe`: true,
		"/srv/cache/9c/9c918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d/runway":                              true,
		"/opt/ab/cdef/runway": false,
		"/opt/ab/47918e09cc5c0c3744dde3d3a3c3b41b36fef0c079d298e864f6745011b4e7ec-d": false,
	} {
		if got := Temporary(exe); got != want {
			t.Errorf("Temporary(%q) = %v, want %v", exe, got, want)
		}
	}
}
