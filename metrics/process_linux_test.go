package metrics

import dto "github.com/prometheus/client_model/go"

// platformFamilies are the process's families only some systems give.
var platformFamilies = map[string]dto.MetricType{
	"process_resident_memory_bytes": dto.MetricType_GAUGE,
	"process_cpu_seconds_total":     dto.MetricType_COUNTER,
}
