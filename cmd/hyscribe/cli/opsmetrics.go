package cli

import (
	"github.com/hyscribe/hyscribe/adapters/metrics"
)

// registerProcessMetrics adds what every process exports besides its own
// work: the Go runtime, the process, go_build_info, and
// hyscribe_build_info with the version `hyscribe version` prints.
func registerProcessMetrics(reg *metrics.Registry) {
	reg.RegisterRuntime()
	bi := ReadBuildInfo()
	reg.GaugeVec("hyscribe_build_info", "Always 1; the labels say which build runs.", "version", "commit", "goversion").
		Set(1, bi.Version, bi.Commit, bi.GoVersion)
}
