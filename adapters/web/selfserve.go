package web

import (
	"fmt"
	"html/template"
	"net/url"

	"github.com/hyscribe/hyscribe/domain"
)

// selfServeFuncs are the template functions of the self-serve pages.
func (w *Web) selfServeFuncs() template.FuncMap {
	return template.FuncMap{
		"uploadHead":   func() int { return w.cfg.HeadBytes },
		"uploadMax":    func() int64 { return w.cfg.MaxUploadBytes },
		"planKey":      func(p domain.Plan) string { return "plan." + string(p) },
		"roleKey":      func(r domain.Role) string { return "role." + string(r) },
		"isOwner":      func(r domain.Role) bool { return r == domain.RoleOwner },
		"statusCount":  func(counts []int, i int) int { return counts[i] },
		"trialSeconds": func() float64 { return w.cfg.TrialSeconds },
		"trialByEmail": func() bool { return w.cfg.TrialByEmail },
	}
}

// tf is a message with arguments.
func tf(lang Lang, key string, args ...any) string { return fmt.Sprintf(text(lang, key), args...) }

func hasText(key string) bool { _, ok := messages[key]; return ok }

// uploadOrigin is the CSP connect-src addition for signed upload
// addresses on another origin ("" when uploads come here).
func uploadOrigin(origin string) string {
	u, err := url.Parse(origin)
	if origin == "" || err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return " " + u.Scheme + "://" + u.Host
}
