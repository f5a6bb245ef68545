package web

import (
	"html/template"
	"strings"

	"github.com/hyscribe/hyscribe/domain"
)

// findFuncs are the template functions of the history's columns and
// triage (issue 36).
func findFuncs() template.FuncMap {
	return template.FuncMap{
		"maxListColumns": func() int { return domain.MaxListColumns },
		// joinColumns is the account's list columns as an owner types them.
		"joinColumns": func(a domain.Account) string { return strings.Join(a.ListColumnKeys(), ", ") },
	}
}
