package domain_test

import (
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

func TestLowBalance(t *testing.T) {
	for _, c := range []struct {
		before, after int64
		low, crossed  bool
	}{
		{before: 3_600_000, after: 3_000_000, low: false, crossed: false},
		{before: 700_000, after: 599_999, low: true, crossed: true},
		{before: domain.LowBalanceMs, after: domain.LowBalanceMs - 1, low: true, crossed: true},
		{before: 500_000, after: 400_000, low: true, crossed: false},  // told already
		{before: 0, after: 0, low: true, crossed: false},              // never had any
		{before: 599_999, after: 900_000, low: false, crossed: false}, // topped up
	} {
		a := domain.Account{BalanceMs: c.after}
		if a.LowBalance() != c.low || domain.CrossedLowBalance(c.before, c.after) != c.crossed {
			t.Errorf("%d → %d: low %v crossed %v, want %v %v", c.before, c.after, a.LowBalance(), domain.CrossedLowBalance(c.before, c.after), c.low, c.crossed)
		}
	}
}
