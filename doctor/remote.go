package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/otlp"
	"github.com/agentrunway/runway/text"
)

// telemetryFix: what a remote agent needs to send its usage to port.
func telemetryFix(port string) string {
	return "on the remote box: CLAUDE_CODE_ENABLE_TELEMETRY=1 OTEL_LOGS_EXPORTER=otlp OTEL_METRICS_EXPORTER=otlp " +
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:" + port + " " +
		"OTEL_RESOURCE_ATTRIBUTES=host.name=$(hostname); Codex: an [otel] table with exporter = { otlp-http = ... }; " +
		"then `ssh -N -R " + port + ":127.0.0.1:" + port + " BOX` from here (README: Agents on several machines)"
}

const grpcFix = "set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf on the sending box (Codex: exporter = { otlp-http = { ..., protocol = \"binary\" } }); runway serves OTLP/HTTP, not gRPC"

type listenerState int

const (
	listenerUnprobed listenerState = iota // not loopback: not called
	listenerNone                          // nothing listens
	listenerRunway                        // runway answers
	listenerOther                         // something else answers
)

// probeListener asks a loopback listener what it is with one GET runway
// answers in its own words (or realm); other machines are never called.
func probeListener(ctx context.Context, addr string) (listenerState, string) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !runway.Loopback(host) {
		return listenerUnprobed, ""
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/runway-doctor", nil)
	if err != nil {
		return listenerUnprobed, ""
	}
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return listenerNone, ""
		}
		return listenerOther, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if strings.HasPrefix(string(body), "runway:") || strings.Contains(resp.Header.Get("WWW-Authenticate"), `realm="runway"`) {
		return listenerRunway, ""
	}
	return listenerOther, resp.Status
}

// remoteSection: whether runway serve listens where the config says, what
// it saved and, when nothing arrives, what senders need.
func remoteSection(ctx context.Context, e runway.Env, at time.Time) Section {
	sec := Section{Title: "remote sessions (runway serve)"}
	configured := e.Config.Serve.Listen
	addr := configured
	if addr == "" {
		addr = runway.DefaultListen
	}
	events, recv, readErr := otlp.ReadState(e.StateDir, e.Config.CacheReadWeight)
	var saved time.Time
	if fi, err := os.Stat(filepath.Join(e.StateDir, otlp.StoreName)); err == nil {
		saved = fi.ModTime()
	}

	probe, why := probeListener(ctx, addr)
	sec.Checks = append(sec.Checks, listenerCheck(probe, why, addr, configured, recv.Listen, saved, at))
	if readErr != nil {
		sec.Checks = append(sec.Checks, Check{"remote sessions", CheckWarn, readErr.Error(), "delete the file it names; runway serve writes it afresh"})
		return sec
	}
	_, port, _ := net.SplitHostPort(addr)
	serving := probe == listenerRunway || probe == listenerUnprobed && configured != ""
	lookback := time.Duration(e.Config.Lookback)
	sec.Checks = append(sec.Checks, remoteSessionsCheck(events, lookback, serving, port, saved, at))
	sec.Checks = append(sec.Checks, receiverChecks(recv, lookback, at)...)
	return sec
}

// listenerCheck: to senders, a port held by something else looks like a
// runway dropping their usage.
func listenerCheck(probe listenerState, why, addr, configured, lastListen string, saved, at time.Time) Check {
	listen := Check{Name: "listener"}
	switch probe {
	case listenerRunway:
		listen.State, listen.Detail = CheckOK, "runway listens on "+addr
	case listenerOther:
		listen.State, listen.Detail = CheckWarn, fmt.Sprintf("something other than runway answers on %s (%s)", addr, why)
		listen.Fix = "stop what holds the port (an OpenTelemetry Collector?) or give runway another: [serve] listen in the config, or --listen"
	case listenerNone:
		listen.State, listen.Detail = CheckInfo, "nothing listens on "+addr
		listen.Fix = "run `runway serve` (or `runway tray --listen " + addr + "`) to count agents on other machines; `runway autostart on --serve` starts it at login"
		if configured != "" {
			listen.State = CheckWarn
		}
	default:
		listen.State, listen.Detail = CheckInfo, addr+" is not on this machine: not probed"
		if age := at.Sub(saved); !saved.IsZero() && age >= 0 {
			listen.Detail += fmt.Sprintf("; runway serve last saved its state %s ago", text.Span(age))
		}
	}
	if lastListen != "" && !sameListen(lastListen, addr) {
		listen.Detail += "; the last runway serve listened on " + lastListen
	}
	return listen
}

// remoteSessionsCheck counts sessions and hosts within lookback, or says
// what a sender must set.
func remoteSessionsCheck(events []burn.Event, lookback time.Duration, serving bool, port string, saved, at time.Time) Check {
	type key struct{ provider, id string }
	sessions := map[key]bool{}
	hosts := map[string]map[key]bool{}
	var newest time.Time
	for _, ev := range events {
		if at.Sub(ev.At) > lookback || ev.At.After(at) {
			continue
		}
		k := key{string(ev.Provider), ev.Session}
		sessions[k] = true
		h := ev.Host
		if h == "" {
			h = "unknown host"
		}
		if hosts[h] == nil {
			hosts[h] = map[key]bool{}
		}
		hosts[h][k] = true
		if ev.At.After(newest) {
			newest = ev.At
		}
	}
	rs := Check{Name: "remote sessions"}
	switch {
	case len(sessions) > 0:
		var from []string
		for _, h := range slices.Sorted(maps.Keys(hosts)) {
			from = append(from, fmt.Sprintf("%s (%d)", h, len(hosts[h])))
		}
		rs.State = CheckOK
		rs.Detail = fmt.Sprintf("%s in the last %s from %s; newest event %s ago", plural(len(sessions), "session"), text.Span(lookback),
			strings.Join(from, ", "), text.Span(at.Sub(newest)))
		if age := at.Sub(saved); !saved.IsZero() && age >= 0 {
			rs.Detail += fmt.Sprintf("; %s saved %s ago", otlp.StoreName, text.Span(age))
		}
	case serving:
		// A fact: serve also keeps this machine's figures and /metrics.
		rs.State, rs.Detail, rs.Fix = CheckInfo, "no other machine sent usage in the last "+text.Span(lookback), telemetryFix(port)
	default:
		rs.State, rs.Detail = CheckInfo, "none"
	}
	return rs
}

// receiverChecks: what the receiver took and refused, a gRPC sender apart
// (its fix is on the sending box).
func receiverChecks(recv otlp.ReceiverState, lookback time.Duration, at time.Time) []Check {
	var out []Check
	if n := recv.Refused(); n > 0 || recv.Count("ok") > 0 {
		c := Check{Name: "receiver", State: CheckOK, Detail: fmt.Sprintf("%d requests taken, %d refused", recv.Count("ok"), n)}
		if n > 0 {
			c.State = CheckInfo
			c.Detail += " (" + refusals(recv) + "; runway_otlp_requests_total in /metrics)"
		}
		out = append(out, c)
	}
	if g := recv.Count(otlp.OutcomeGRPC); g > 0 {
		c := Check{Name: "gRPC sender", State: CheckInfo, Fix: grpcFix,
			Detail: fmt.Sprintf("%s from a gRPC exporter refused, the last %s ago", plural(int(g), "request"), text.Span(at.Sub(recv.LastGRPC)))}
		if at.Sub(recv.LastGRPC) <= lookback {
			c.State = CheckWarn
		}
		out = append(out, c)
	}
	return out
}

// refusals is "3 malformed, 1 grpc".
func refusals(r otlp.ReceiverState) string {
	by := map[string]int64{}
	for k, n := range r.Requests {
		if k[1] != "ok" {
			by[k[1]] += n
		}
	}
	var out []string
	for _, why := range slices.Sorted(maps.Keys(by)) {
		out = append(out, fmt.Sprintf("%d %s", by[why], strings.ReplaceAll(why, "_", " ")))
	}
	return strings.Join(out, ", ")
}

// sameListen: two host:port of one listener (wildcards alike, loopbacks alike).
func sameListen(a, b string) bool {
	ha, pa, _ := net.SplitHostPort(a)
	hb, pb, _ := net.SplitHostPort(b)
	wildcard := func(h string) bool { return h == "" || h == "0.0.0.0" || h == "::" }
	return pa == pb && (ha == hb || wildcard(ha) && wildcard(hb) || runway.Loopback(ha) && runway.Loopback(hb))
}
