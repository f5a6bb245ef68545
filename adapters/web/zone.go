package web

import (
	"html/template"
	"sync"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// Every account has a time zone (domain.Account.TimeZone; empty is the
// deployment's, Config.Location): pages show times in it, date filters and
// Analytics and Usage count its days. The templates' time functions are
// bound to a zone when the pages are parsed, so each zone in use gets its
// own parsed pages (parsing all of them takes milliseconds; a
// deployment's accounts use a handful of zones). One zone's pages hold
// about 2.3 MiB, so at most maxZonePages zones are kept: a further zone
// displaces one kept at random and is parsed again when next shown.
type zonePages struct {
	mu     sync.Mutex
	byZone map[string]map[string]*template.Template
}

// maxZonePages is how many zones' pages are kept besides the
// deployment's: 16 × 2.3 MiB ≈ 37 MiB at most, while the zones in use by
// a deployment's accounts are a handful (Settings offers 17).
const maxZonePages = 16

// zoneOf is where the visitor's account lives; the deployment's zone for
// a signed-out visitor, or an account whose zone this binary does not know.
func (w *Web) zoneOf(v *app.Visitor) *time.Location {
	if v == nil || v.Account.TimeZone == "" || v.Account.TimeZone == w.cfg.Location.String() {
		return w.cfg.Location
	}
	if loc, err := app.LoadZone(v.Account.TimeZone); err == nil {
		return loc
	}
	return w.cfg.Location
}

// pagesIn are the pages whose times are shown in loc.
func (w *Web) pagesIn(loc *time.Location) map[string]*template.Template {
	if loc == nil || loc == w.cfg.Location || loc.String() == w.cfg.Location.String() {
		return w.pages
	}
	w.zones.mu.Lock()
	defer w.zones.mu.Unlock()
	if p, ok := w.zones.byZone[loc.String()]; ok {
		return p
	}
	if w.zones.byZone == nil {
		w.zones.byZone = map[string]map[string]*template.Template{}
	}
	p := parsePages(w.pageFuncs(loc))
	for z := range w.zones.byZone {
		if len(w.zones.byZone) < maxZonePages {
			break
		}
		delete(w.zones.byZone, z)
	}
	w.zones.byZone[loc.String()] = p
	return p
}

// pageFuncs are every template function of pages shown in loc.
func (w *Web) pageFuncs(loc *time.Location) template.FuncMap {
	funcs := w.funcs(loc)
	for k, f := range w.selfServeFuncs() {
		funcs[k] = f
	}
	for k, f := range findFuncs() {
		funcs[k] = f
	}
	funcs["zoneChoices"] = func(current string) []string { return zoneChoices(w.cfg.Location.String(), current) }
	funcs["zoneDefault"] = func() string { return w.cfg.Location.String() }
	funcs["speakerNumbers"] = func() []string { return []string{"1", "2"} }
	funcs["who"] = speakerWho
	funcs["evidenceWho"] = evidenceWho
	funcs["answerReason"] = answerReason
	funcs["failure"] = failureText
	funcs["analysisFailure"] = analysisFailureText
	funcs["deliveryFailure"] = deliveryFailureText
	funcs["roleKey2"] = func(r domain.SpeakerRole) string { return "speaker.role." + string(r) }
	funcs["span"] = span
	return funcs
}

// commonZones are the zones Settings offers first: the region's and the
// world's usual call-centre zones. Any other IANA zone can be set with
// `hyscribe account update --time-zone`, and is then offered too.
var commonZones = []string{
	"Asia/Yerevan", "Asia/Tbilisi", "Asia/Baku", "Europe/Moscow", "Asia/Dubai", "Europe/Istanbul", "Europe/Kyiv",
	"Europe/Berlin", "Europe/Paris", "Europe/London", "UTC", "America/New_York", "America/Chicago",
	"America/Los_Angeles", "Asia/Tehran", "Asia/Almaty", "Australia/Sydney",
}

// zoneChoices lists the deployment's zone, the account's, then the common
// ones, each once.
func zoneChoices(deployment, current string) []string {
	seen := map[string]bool{}
	var out []string
	for _, z := range append([]string{deployment, current}, commonZones...) {
		if z != "" && !seen[z] {
			seen[z] = true
			out = append(out, z)
		}
	}
	return out
}
