package metrics

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/agentrunway/runway/burn"
)

// parse reads an exposition as Prometheus's own text parser does.
func parse(t testing.TB, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Prometheus's parser refuses the exposition: %v\n%s", err, text)
	}
	return fams
}

// lines is every sample of fams as "name{label="value",…} value", label
// names sorted, from what the parser read.
func lines(fams map[string]*dto.MetricFamily, skip func(name string) bool) []string {
	var out []string
	for name, f := range fams {
		if skip != nil && skip(name) {
			continue
		}
		for _, m := range f.Metric {
			var labels []string
			for _, l := range m.Label {
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			slices.Sort(labels)
			v := m.GetGauge().GetValue()
			if f.GetType() == dto.MetricType_COUNTER {
				v = m.GetCounter().GetValue()
			}
			s := name
			if len(labels) > 0 {
				s += "{" + strings.Join(labels, ",") + "}"
			}
			out = append(out, s+" "+strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	slices.Sort(out)
	return out
}

// scrapeAll is a scrape of snapshot(3) with a counter family beside,
// read back by Prometheus's parser.
func scrapeAll(t *testing.T) (string, map[string]*dto.MetricFamily) {
	requests := NewCounterVec("runway_otlp_requests_total", "OTLP/HTTP requests received.", "signal", "outcome")
	requests.Inc("logs", "ok")
	requests.Add(2, "logs", "ok")
	requests.Inc("scrape", "unauthorized")
	text := scrape(t, snapshot(3), func() []Family { return []Family{requests.Family()} })
	return text, parse(t, text)
}

// wantTypes are the families of a scrape: the client library's, family for
// family, before runway wrote the format itself.
func wantTypes() map[string]dto.MetricType {
	want := map[string]dto.MetricType{"runway_otlp_requests_total": dto.MetricType_COUNTER}
	for _, name := range []string{"runway_window_used_ratio", "runway_window_reset_timestamp_seconds",
		"runway_window_runout_timestamp_seconds", "runway_window_burn_quota_seconds_per_second", "runway_window_state",
		"runway_window_sustainable_quota_seconds_per_second", "runway_session_quota_seconds_per_second",
		"runway_session_tokens_per_second", "runway_elsewhere_quota_seconds_per_second", "runway_source_age_seconds",
		"process_start_time_seconds", "go_goroutines", "go_memstats_heap_inuse_bytes"} {
		want[name] = dto.MetricType_GAUGE
	}
	// Resident memory where the system tells it cheaply, CPU time where
	// getrusage exists.
	switch runtime.GOOS {
	case "linux":
		want["process_resident_memory_bytes"] = dto.MetricType_GAUGE
		fallthrough
	case "darwin", "freebsd", "netbsd", "openbsd", "dragonfly":
		want["process_cpu_seconds_total"] = dto.MetricType_COUNTER
	}
	return want
}

func TestExpositionFamilies(t *testing.T) {
	text, fams := scrapeAll(t)
	types := map[string]dto.MetricType{}
	for name, f := range fams {
		types[name] = f.GetType()
		if f.GetHelp() == "" {
			t.Errorf("%s has no help", name)
		}
		if strings.Count(text, "# TYPE "+name+" ") != 1 || strings.Count(text, "# HELP "+name+" ") != 1 {
			t.Errorf("%s: HELP and TYPE not once each", name)
		}
	}
	if fmt.Sprint(types) != fmt.Sprint(wantTypes()) {
		t.Errorf("families\n%v\nwant\n%v", types, wantTypes())
	}
	if h := fams["runway_window_used_ratio"].GetHelp(); h != "Share of the window's quota used (0 to 1), from the newest account sample." {
		t.Errorf("help %q", h)
	}
	// The process's own families: one sample each, no labels, plausible values.
	for name := range wantTypes() {
		if strings.HasPrefix(name, "runway_") {
			continue
		}
		f := fams[name]
		if len(f.Metric) != 1 || len(f.Metric[0].Label) != 0 {
			t.Errorf("%s: %v", name, f.Metric)
			continue
		}
		v := f.Metric[0].GetGauge().GetValue() + f.Metric[0].GetCounter().GetValue()
		ok := v > 0
		switch name {
		case "process_start_time_seconds":
			ok = math.Abs(v-float64(started.UnixMicro())/1e6) < 1e-3
		case "process_resident_memory_bytes":
			ok = v > 1<<20 && v < 1<<40
		case "process_cpu_seconds_total":
			ok = v > 0 && v < 1e6
		}
		if !ok {
			t.Errorf("%s %v", name, v)
		}
	}
}

// Every sample of runway's families, exactly: a weekly window that lasts
// has no run-out, idle and waiting sessions none, Codex's weekly window
// (its active one too) one series.
func TestExpositionSamples(t *testing.T) {
	_, fams := scrapeAll(t)
	want := []string{
		`runway_elsewhere_quota_seconds_per_second{provider="claude"} 0.2`,
		`runway_elsewhere_quota_seconds_per_second{provider="codex"} 0`,
		`runway_otlp_requests_total{outcome="ok",signal="logs"} 3`,
		`runway_otlp_requests_total{outcome="unauthorized",signal="scrape"} 1`,
		`runway_source_age_seconds{provider="claude",source="oauth"} 300`,
		`runway_source_age_seconds{provider="claude",source="statusline"} 20`,
		`runway_source_age_seconds{provider="codex",source="codex-log"} 60`,
		`runway_window_burn_quota_seconds_per_second{provider="claude",window="5h"} 1.5`,
		`runway_window_burn_quota_seconds_per_second{provider="claude",window="weekly"} 0.5`,
		`runway_window_burn_quota_seconds_per_second{provider="codex",window="weekly"} 0`,
		`runway_window_sustainable_quota_seconds_per_second{provider="claude",window="5h"} 1.125`,
		`runway_window_sustainable_quota_seconds_per_second{provider="claude",window="weekly"} 1.6333333333333333`,
		`runway_window_sustainable_quota_seconds_per_second{provider="codex",window="weekly"} 0`,
		`runway_window_reset_timestamp_seconds{provider="claude",window="5h"} 1795179600`,
		`runway_window_reset_timestamp_seconds{provider="claude",window="weekly"} 1795435200`,
		`runway_window_reset_timestamp_seconds{provider="codex",window="weekly"} 1795262400`,
		`runway_window_runout_timestamp_seconds{provider="claude",window="5h"} 1795178400`,
		`runway_window_used_ratio{provider="claude",window="5h"} 0.625`,
		`runway_window_used_ratio{provider="claude",window="weekly"} 0.3`,
		`runway_window_used_ratio{provider="codex",window="weekly"} 1`,
	}
	for i, share := range []string{"0", "0.016666666666666666", "0.03333333333333333"} {
		session := fmt.Sprintf(`{host="devbox",project="/srv/app",provider="claude",session="s-%03d"} `, i)
		want = append(want, "runway_session_quota_seconds_per_second"+session+share, "runway_session_tokens_per_second"+session+"10")
	}
	for _, st := range states {
		for _, w := range []struct{ prov, win, state string }{{"claude", "5h", "runout_before_reset"}, {"claude", "weekly", "on_track"}, {"codex", "weekly", "exhausted"}} {
			v := 0
			if string(st) == w.state {
				v = 1
			}
			want = append(want, fmt.Sprintf(`runway_window_state{provider="%s",state="%s",window="%s"} %d`, w.prov, st, w.win, v))
		}
	}
	slices.Sort(want)
	got := lines(fams, func(name string) bool { return !strings.HasPrefix(name, "runway_") })
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("samples\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The exact text: families by name, two sources' merged, labels by name,
// samples by value, a repeated set once, empty families out, escapes.
func TestTextFormat(t *testing.T) {
	fams := []Family{
		{Name: "b_total", Help: `Counts \ things` + "\nover two lines.", Type: Counter, Samples: []Sample{
			{Labels: []Label{{"z", "1"}, {"a", `say "hi"`}}, Value: 2},
			{Labels: []Label{{"a", "back\\slash"}, {"z", "line\nbreak"}}, Value: 1},
		}},
		{Name: "a", Help: "First by name.", Type: Gauge, Samples: []Sample{{Value: 0.5}}},
		{Name: "empty", Help: "No samples.", Type: Gauge},
		{Name: "b_total", Help: "Second source.", Type: Counter, Samples: []Sample{
			{Labels: []Label{{"a", `say "hi"`}, {"z", "1"}}, Value: 99},
			{Labels: []Label{{"a", "alpha"}, {"z", "é ✓"}}, Value: 3},
			{Labels: []Label{{"a", "bad\xff"}, {"z", "2"}}, Value: 4},
			{Labels: []Label{{"a", "bad\xfeX"}, {"z", "2"}}, Value: 6},
			{Labels: []Label{{"a", "bad\xfe"}, {"z", "2"}}, Value: 5},
		}},
	}
	want := `# HELP a First by name.
# TYPE a gauge
a 0.5
# HELP b_total Counts \\ things\nover two lines.
# TYPE b_total counter
b_total{a="alpha",z="é ✓"} 3
b_total{a="back\\slash",z="line\nbreak"} 1
b_total{a="bad�",z="2"} 5
b_total{a="bad�X",z="2"} 6
b_total{a="say \"hi\"",z="1"} 2
`
	if got := string(AppendText(nil, fams)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := AppendText(nil, nil); len(got) != 0 {
		t.Errorf("nothing to write: %q", got)
	}
}

func TestFloats(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-1, "-1"}, {0.625, "0.625"}, {1.7951796e+09, "1.7951796e+09"},
		{1.0 / 3, "0.3333333333333333"}, {1e-9, "1e-09"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"}, {math.NaN(), "NaN"}, {math.Copysign(0, -1), "-0"},
	} {
		got := string(AppendFloat(nil, c.v))
		if got != c.want {
			t.Errorf("%v: %s, want %s", c.v, got, c.want)
		}
		back := parse(t, "x "+got+"\n")["x"].Metric[0].GetUntyped().GetValue()
		if math.Float64bits(back) != math.Float64bits(c.v) && !(math.IsNaN(back) && math.IsNaN(c.v)) {
			t.Errorf("%s reads back as %v", got, back)
		}
	}
}

// Prometheus asks for gzip; a client that refuses it gets plain text.
func TestGzipWhenAsked(t *testing.T) {
	h := Handler(Snapshot(func() burn.Snapshot { return snapshot(1) }, func() time.Time { return now }))
	get := func(accept string) (*httptest.ResponseRecorder, string) {
		req := httptest.NewRequest("GET", "/metrics", nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		if rec.Header().Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(zr)
		}
		return rec, string(body)
	}
	plainRec, plain := get("")
	for accept, gz := range map[string]bool{
		"":                 false,
		"gzip":             true,
		"identity":         false,
		"deflate, GZIP":    true,
		"gzip;q=0":         false,
		"gzip; q=0.5, br":  true,
		"br;q=1, gzip;q=0": false,
	} {
		rec, body := get(accept)
		if (rec.Header().Get("Content-Encoding") == "gzip") != gz || body != plain {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, same text %v", accept, rec.Header().Get("Content-Encoding"), body == plain)
		}
	}
	if plainRec.Header().Get("Content-Length") != strconv.Itoa(len(plain)) || !strings.Contains(plain, "runway_window_used_ratio") {
		t.Errorf("Content-Length %s for %d bytes", plainRec.Header().Get("Content-Length"), len(plain))
	}
}

// A scrape is a GET (or HEAD); a POST, PUT or DELETE is told so, not
// answered as if it were one.
func TestScrapeIsAGet(t *testing.T) {
	h := Handler(Snapshot(func() burn.Snapshot { return snapshot(1) }, func() time.Time { return now }))
	for method, want := range map[string]int{"GET": 200, "HEAD": 200, "POST": 405, "PUT": 405, "DELETE": 405} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, "/metrics", nil))
		if rec.Code != want || (want == 405 && rec.Header().Get("Allow") != "GET, HEAD") {
			t.Errorf("%s: %d, Allow %q, want %d", method, rec.Code, rec.Header().Get("Allow"), want)
		}
		if want == 200 && rec.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s: Vary %q: a cache would hand gzip to a client that refuses it", method, rec.Header().Get("Vary"))
		}
	}
}

// Requests count from many handlers at once.
func TestCounterVecConcurrent(t *testing.T) {
	c := NewCounterVec("c_total", "Counts.", "signal", "outcome")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 1000 {
				c.Inc("logs", []string{"ok", "malformed"}[i%2])
				c.Family()
			}
		})
	}
	wg.Wait()
	c.Add(0, "metrics", "ok")
	got := lines(parse(t, string(AppendText(nil, []Family{c.Family()}))), nil)
	want := []string{
		`c_total{outcome="malformed",signal="logs"} 4000`,
		`c_total{outcome="ok",signal="logs"} 4000`,
		`c_total{outcome="ok",signal="metrics"} 0`, // an Add of 0 is a series
	}
	if !slices.Equal(got, want) {
		t.Errorf("%q", got)
	}
}

// BenchmarkScrape is one scrape of a busy snapshot (50 burning sessions)
// with the process's figures: what each Prometheus scrape costs serve.
func BenchmarkScrape(b *testing.B) {
	s := snapshot(50)
	h := Handler(Snapshot(func() burn.Snapshot { return s }, func() time.Time { return now }), Process)
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}
