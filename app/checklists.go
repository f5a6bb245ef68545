package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// UpdateChecklist saves a new definition of the account's checklist as its
// next version. Analyses of jobs created earlier keep the version (and the
// name) their job was created with. An archived checklist cannot be edited.
func (uc *Provision) UpdateChecklist(ctx context.Context, account domain.AccountID, id string, definition []byte) (domain.Checklist, error) {
	f, err := domain.ParseChecklistFile(definition)
	if err != nil {
		return domain.Checklist{}, err
	}
	latest, err := uc.checklists.GetChecklist(ctx, account, id)
	if err != nil {
		return domain.Checklist{}, fmt.Errorf("update checklist %s: %w", id, err)
	}
	if latest.Archived {
		return domain.Checklist{}, domain.Invalid("archived_checklist", "checklist %q is archived and cannot be edited", id)
	}
	c := domain.Checklist{ID: id, AccountID: account, Name: f.Name, Version: latest.Version + 1, Questions: f.Questions, CreatedAt: uc.clock.Now()}
	if err := uc.checklists.AddChecklistVersion(ctx, c); err != nil {
		if errors.Is(err, domain.ErrConflict) {
			return domain.Checklist{}, fmt.Errorf("update checklist %s: edited by someone else at the same time, try again: %w", id, err)
		}
		return domain.Checklist{}, fmt.Errorf("update checklist %s: %w", id, err)
	}
	return c, nil
}

// ListChecklists returns the latest version of each of the account's checklists.
func (uc *Provision) ListChecklists(ctx context.Context, account domain.AccountID) ([]domain.Checklist, error) {
	if _, err := uc.accounts.GetAccount(ctx, account); err != nil {
		return nil, fmt.Errorf("list checklists: %w", err)
	}
	cs, err := uc.checklists.ListChecklists(ctx, account)
	if err != nil {
		return nil, fmt.Errorf("list checklists: %w", err)
	}
	return cs, nil
}

// ShowChecklist returns one version of the checklist; version ≤ 0 is the latest.
func (uc *Provision) ShowChecklist(ctx context.Context, account domain.AccountID, id string, version int) (domain.Checklist, error) {
	var c domain.Checklist
	var err error
	if version > 0 {
		c, err = uc.checklists.GetChecklistVersion(ctx, account, id, version)
	} else {
		c, err = uc.checklists.GetChecklist(ctx, account, id)
	}
	if err != nil {
		return domain.Checklist{}, fmt.Errorf("show checklist %s: %w", id, err)
	}
	return c, nil
}

// ArchiveChecklist retires the checklist: new jobs may not name it (400);
// jobs created before still get their analysis.
func (uc *Provision) ArchiveChecklist(ctx context.Context, account domain.AccountID, id string) error {
	if err := uc.checklists.ArchiveChecklist(ctx, account, id); err != nil {
		return fmt.Errorf("archive checklist %s: %w", id, err)
	}
	return nil
}
