// Command genhistory writes a large, realistic agent history for the
// benchmarks: hundreds of old Claude and Codex sessions and one big active
// Claude session whose last hour is recent.
//
//	go run ./internal/synth/genhistory -out DIR -size 3.4G
//
// then point runway (or another tool) at it:
//
//	CLAUDE_CONFIG_DIR=DIR/claude CODEX_HOME=DIR/codex runway now
//
// The history ends at the moment it is written, so it is "recent" only for
// a while: regenerate it for a later run.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentrunway/runway/internal/synth"
)

func main() {
	out := flag.String("out", "", "folder to write the history into (required)")
	size := flag.String("size", "3.4G", "total size, e.g. 64M, 3.4G")
	active := flag.String("active", "", "size of the big active Claude session (default size/16)")
	recent := flag.String("recent", "", "its part stamped in the last hour (default active/25)")
	seed := flag.Uint64("seed", 1, "content seed")
	lone := flag.Bool("lone", false, "only the big session (and its subagent) is recent")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	o := synth.HistoryOptions{End: time.Now(), Seed: *seed, Lone: *lone}
	var err error
	if o.Size, err = parseSize(*size); err == nil {
		if o.ActiveSize, err = parseSize(*active); err == nil {
			o.RecentBytes, err = parseSize(*recent)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genhistory:", err)
		os.Exit(2)
	}
	start := time.Now()
	st, err := synth.History(*out, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genhistory:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d files, %.1f MB in %.1fs; active session %s (%.1f MB)\n",
		st.Files, float64(st.Bytes)/1e6, time.Since(start).Seconds(), st.Active, float64(st.ActiveBytes)/1e6)
	fmt.Printf("CLAUDE_CONFIG_DIR=%s CODEX_HOME=%s\n", st.Claude, st.Codex)
}

// parseSize reads 512K, 64M, 3.4G (powers of 1000) or plain bytes; "" is 0.
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	mult := 1.0
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1e3
	case "M":
		mult = 1e6
	case "G":
		mult = 1e9
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q: want e.g. 64M or 3.4G", s)
	}
	return int64(v * mult), nil
}
