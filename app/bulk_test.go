package app_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/domain"
)

// TestBulkSelectionIsTheWholeFilterBounded: "select all matching" takes
// every call the filter keeps across pages, in the account only, and a
// filter keeping more than MaxBulkSelection takes none (issue 36, item 6).
func TestBulkSelectionIsTheWholeFilterBounded(t *testing.T) {
	ctx := context.Background()
	st := apptest.NewStore()
	for _, a := range []domain.AccountID{"acc", "other"} {
		if err := st.CreateAccount(ctx, domain.Account{ID: a, Name: string(a), Plan: domain.PlanBusiness, AgentKey: "agent"}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	add := func(acct domain.AccountID, n int, agent string) {
		for i := range n {
			id := domain.DocID(fmt.Sprintf("%s-%s-%03d", acct, agent, i))
			j, evs := domain.NewJob(id, acct, domain.CreateRequest{Type: domain.TypePhoneCall, Metadata: []byte(`{"agent":"` + agent + `"}`)}, t0.Add(time.Duration(i)*time.Second), time.Hour)
			if err := st.CreateJob(ctx, j, evs); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("acc", 230, "ext115") // more than two of Matching's pages
	add("acc", app.MaxBulkSelection, "ext204")
	add("other", 5, "ext115")
	acc := app.Actor{Account: domain.Account{ID: "acc"}}
	uc := app.NewListJobs(st, st, st, st, st)

	got, err := uc.Matching(ctx, acc, app.ListCommand{Agent: "ext115"})
	if err != nil || len(got) != 230 {
		t.Fatalf("all of ext115's calls: %d, %v; want 230", len(got), err)
	}
	seen := map[domain.DocID]bool{}
	for _, id := range got {
		if seen[id] || id[:4] != "acc-" {
			t.Fatalf("%s listed twice or from another account", id)
		}
		seen[id] = true
	}
	_, err = uc.Matching(ctx, acc, app.ListCommand{})
	if ve, ok := errors.AsType[*domain.ValidationError](err); !ok || ve.Code != "too_many_chosen" {
		t.Fatalf("a filter keeping %d: %v, want too_many_chosen", 230+app.MaxBulkSelection, err)
	}
	if got, err := uc.Matching(ctx, acc, app.ListCommand{Agent: "ext204"}); err != nil || len(got) != app.MaxBulkSelection {
		t.Fatalf("exactly the bound: %d, %v", len(got), err)
	}
}
