package app

import (
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// mayManage refuses an account change by a person whose role may not make
// it (domain.Role.MayManage) with domain.ErrForbidden. The web
// application's use cases that change the account take the acting
// person's role and call it first, so the rule holds whatever page or
// form asks; operators' commands and tests act as the account's owner.
func mayManage(by domain.Role, what string) error {
	if by.MayManage() {
		return nil
	}
	return fmt.Errorf("%s: a %s may not change the account, only an owner may: %w", what, roleName(by), domain.ErrForbidden)
}

func roleName(r domain.Role) string {
	if r == "" {
		return "person without a role"
	}
	return string(r)
}
