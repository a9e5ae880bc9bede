//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package metrics

import dto "github.com/prometheus/client_model/go"

// platformFamilies are the process's families only some systems give.
var platformFamilies = map[string]dto.MetricType{
	"process_cpu_seconds_total": dto.MetricType_COUNTER,
}
