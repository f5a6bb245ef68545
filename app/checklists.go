package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// UpdateChecklist saves a new definition of the account's checklist as its
// next version. Analyses of jobs created earlier keep the version (and the
// name) their job was created with. An archived checklist cannot be edited.
type UpdateChecklist struct {
	checklists ports.ChecklistStore
	clock      ports.Clock
}

// NewUpdateChecklist builds the use case.
func NewUpdateChecklist(checklists ports.ChecklistStore, clock ports.Clock) *UpdateChecklist {
	need("checklists", checklists)
	need("clock", clock)
	return &UpdateChecklist{checklists: checklists, clock: clock}
}

// Handle runs the use case (UpdateChecklist).
func (uc *UpdateChecklist) Handle(ctx context.Context, account domain.AccountID, by domain.Role, id string, definition []byte) (domain.Checklist, error) {
	if err := mayManage(by, "update checklist"); err != nil {
		return domain.Checklist{}, err
	}
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
type ListChecklists struct {
	accounts   ports.AccountStore
	checklists ports.ChecklistStore
}

// NewListChecklists builds the use case.
func NewListChecklists(accounts ports.AccountStore, checklists ports.ChecklistStore) *ListChecklists {
	need("accounts", accounts)
	need("checklists", checklists)
	return &ListChecklists{accounts: accounts, checklists: checklists}
}

// Handle runs the use case (ListChecklists).
func (uc *ListChecklists) Handle(ctx context.Context, account domain.AccountID) ([]domain.Checklist, error) {
	if _, err := uc.accounts.GetAccount(ctx, account); err != nil {
		return nil, fmt.Errorf("list checklists: %w", err)
	}
	cs, err := uc.checklists.ListChecklists(ctx, account)
	if err != nil {
		return nil, fmt.Errorf("list checklists: %w", err)
	}
	return cs, nil
}

// ShowChecklist returns one version of a checklist.
type ShowChecklist struct {
	checklists ports.ChecklistStore
}

// NewShowChecklist builds the use case.
func NewShowChecklist(checklists ports.ChecklistStore) *ShowChecklist {
	need("checklists", checklists)
	return &ShowChecklist{checklists: checklists}
}

// Handle runs the use case (ShowChecklist); version ≤ 0 is the latest.
// A person whose role may not read checklists (domain.Role.MayReadChecklists)
// gets domain.ErrForbidden.
func (uc *ShowChecklist) Handle(ctx context.Context, account domain.AccountID, by domain.Role, id string, version int) (domain.Checklist, error) {
	if !by.MayReadChecklists() {
		return domain.Checklist{}, fmt.Errorf("show checklist: a %s may not read checklists: %w", roleName(by), domain.ErrForbidden)
	}
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

// ArchiveChecklist retires a checklist: new jobs may not name it (400);
// jobs created before still get their analysis.
type ArchiveChecklist struct {
	checklists ports.ChecklistStore
}

// NewArchiveChecklist builds the use case.
func NewArchiveChecklist(checklists ports.ChecklistStore) *ArchiveChecklist {
	need("checklists", checklists)
	return &ArchiveChecklist{checklists: checklists}
}

// Handle runs the use case (ArchiveChecklist).
func (uc *ArchiveChecklist) Handle(ctx context.Context, account domain.AccountID, by domain.Role, id string) error {
	if err := mayManage(by, "archive checklist"); err != nil {
		return err
	}
	if err := uc.checklists.ArchiveChecklist(ctx, account, id); err != nil {
		return fmt.Errorf("archive checklist %s: %w", id, err)
	}
	return nil
}
