package sqlite

import (
	"testing"

	"github.com/hyscribe/hyscribe/ports/porttest"
)

// BenchmarkCreate: what an Idempotency-Key costs a createTranscription's
// write (docs/performance.md).
func BenchmarkCreate(b *testing.B) { porttest.BenchCreate(b, openTemp(b)) }

func BenchmarkPipelineTransitions(b *testing.B) { porttest.BenchPipelineTransitions(b, openTemp(b)) }
