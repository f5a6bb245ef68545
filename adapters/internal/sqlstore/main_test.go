package sqlstore

import (
	"os"
	"testing"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// TestMain stops the throwaway Postgres the tests may have started
// (pgtest, when no server was given or found) once they end.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
