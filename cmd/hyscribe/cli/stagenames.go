package cli

import "slices"

// StageNames is every pipeline stage the binary has, in pipeline order: what
// the deployments in deploy/ must run between their processes (its test
// checks they do).
func StageNames() []string { return slices.Clone(AllStages) }
