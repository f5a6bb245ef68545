package sqlite

import (
	"testing"

	"github.com/hyscribe/hyscribe/ports/porttest"
)

func TestTouchAPIKeys(t *testing.T) { porttest.KeyTouches(t, openTemp(t)) }
