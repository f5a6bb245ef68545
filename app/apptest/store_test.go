package apptest_test

import (
	"testing"

	"hyscribe/app/apptest"
	"hyscribe/ports/porttest"
)

func TestStoreContract(t *testing.T) {
	porttest.Store(t, func(*testing.T) porttest.Stores { return apptest.NewStore() })
}
