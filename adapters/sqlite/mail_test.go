package sqlite

import (
	"testing"

	"github.com/hyscribe/hyscribe/ports"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

func TestMailOutboxContract(t *testing.T) {
	porttest.MailOutbox(t, func(t *testing.T) ports.MailOutbox { return openTemp(t) })
}
