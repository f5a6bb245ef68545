package postgres

import (
	"testing"

	"github.com/hyscribe/hyscribe/ports/porttest"
)

func TestTeamContract(t *testing.T) {
	porttest.Team(t, func(t *testing.T) porttest.TeamStores { return openTest(t) })
}
