package clickhouse_test

import (
	"os"
	"testing"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// TestMain stops the ClickHouse server the tests may have started
// (chtest, when none was given or found) once they end.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
