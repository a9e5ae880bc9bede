package metrics

import (
	"runtime"
	"time"
)

// started stands for the process's start: init runs within a millisecond of
// it, and a restart is what the figure is for.
var started = time.Now()

// Process is the source of the process's own figures: resident memory where
// the system tells it cheaply (Linux), CPU time where getrusage exists.
func Process() []Family {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fams := []Family{
		one("process_start_time_seconds", "When the process started (Unix time).", Gauge,
			float64(started.UnixMicro())/1e6),
		one("go_goroutines", "Goroutines that exist now.", Gauge, float64(runtime.NumGoroutine())),
		one("go_memstats_heap_inuse_bytes", "Bytes in heap spans in use.", Gauge, float64(ms.HeapInuse)),
	}
	if b, ok := residentBytes(); ok {
		fams = append(fams, one("process_resident_memory_bytes", "Resident memory of the process in bytes.", Gauge, b))
	}
	if s, ok := cpuSeconds(); ok {
		fams = append(fams, one("process_cpu_seconds_total", "User and system CPU time of the process in seconds.", Counter, s))
	}
	return fams
}

func one(name, help string, t Type, v float64) Family {
	return Family{Name: name, Help: help, Type: t, Samples: []Sample{{Value: v}}}
}
