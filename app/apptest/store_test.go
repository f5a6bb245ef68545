package apptest_test

import (
	"testing"

	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/ports"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

func TestStoreContract(t *testing.T) {
	porttest.Store(t, func(*testing.T) porttest.Stores { return apptest.NewStore() })
}

func TestFakeDeletionPassesTheContract(t *testing.T) {
	porttest.Deletion(t, func(*testing.T) porttest.DeletionStores { return apptest.NewStore() })
}

func TestMailOutboxContract(t *testing.T) {
	porttest.MailOutbox(t, func(*testing.T) ports.MailOutbox { return apptest.NewMailOutbox() })
}
