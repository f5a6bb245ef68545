package postgres

import (
	"testing"

	"github.com/hyscribe/hyscribe/ports/porttest"
)

func TestOperationsContract(t *testing.T) {
	porttest.Operations(t, func(t *testing.T) porttest.OperationsStore { return openTest(t) })
}
