// Package web is hyscribe's web application, served under /app by the same
// fiber server as the API: sign-up and sign-in, the history of recordings,
// a recording's page (the `link` of every event), settings with API keys
// and receivers, QA checklists and analytics.
//
// Pages are server-rendered html/template with a little progressive
// enhancement (static/app.js); every page works without JavaScript. Text is
// Armenian by default, English on request (i18n.go). Cookies are HttpOnly
// and SameSite=Lax, Secure under HTTPS; every form carries a CSRF token;
// a Content-Security-Policy allows only the service's own scripts and styles,
// so a transcript or metadata value can never run as code.
package web

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config tunes the web application.
type Config struct {
	// SecureCookies marks cookies Secure and gives the session cookie the
	// __Host- prefix. Set it whenever the service is reached over HTTPS.
	SecureCookies bool
	// CreateLimit is the upload form's jobs a minute per person: the API's
	// createTranscription limit per key (0: domain.DefaultCreateRateLimit).
	CreateLimit int
	// SignUp opens the sign-up page to anyone; otherwise operators create
	// users with `hyscribe user create|invite`.
	SignUp bool
	// Location is where the people are: times are shown, and date filters
	// read, in it (default UTC).
	Location *time.Location
	// PublicURL is the service's base address, shown in the API example.
	PublicURL string
	// MaxFormBytes bounds a form body (default 256 KiB).
	MaxFormBytes int
	// MaxUploadBytes is the largest file the upload form offers to send
	// (default app.DefaultMaxUploadBytes, the upload address's own limit).
	MaxUploadBytes int64
	// HeadBytes is how much of a file's start the upload form sends for
	// Deps.CheckAudio (default 16 KiB).
	HeadBytes int
	// UploadOrigin is the origin of signed upload addresses when they are
	// not this service (S3-compatible storage): the browser PUTs files
	// there, so the Content-Security-Policy must allow it.
	UploadOrigin string
	// TrialSeconds is the audio a sign-up starts with on the Business plan
	// (HYSCRIBE_TRIAL_SECONDS; 0: none, the operator activates accounts),
	// told on the sign-up page.
	TrialSeconds float64
	// TrialByEmail: the trial comes once the address is confirmed from
	// the letter sent to it (else at once, HYSCRIBE_TRIAL_UNCONFIRMED).
	TrialByEmail bool
}

// Deps are what the pages call: the use cases (App), and the few things
// that are not one.
type Deps struct {
	// App holds the use cases. Required: everything in it the pages call,
	// except Commands.DeleteJob (nil: no deleting in the web application),
	// Commands.SetRetention with Queries.RetentionDays (nil: the setting is
	// not offered) and Commands.Reanalyze (nil: an analysis stays as it was
	// when people give a call's speakers other roles).
	App    app.Application
	Logger *slog.Logger

	// CheckAudio is the process stage's verdict on a file's first bytes
	// and size (nil, or the error the stage would give), which the upload
	// form asks before creating a job; OpenAPI is the document the API
	// page renders.
	CheckAudio func(head []byte, size int64) error
	OpenAPI    []byte

	// Letters e-mails invitations, reset links and "Forgot password?"
	// (nil or without a mailer: links are copied by hand).
	Letters *app.Letters
}

// Web serves the pages.
type Web struct {
	cfg      Config
	deps     Deps
	commands app.Commands
	queries  app.Queries
	log      *slog.Logger
	pages    map[string]*template.Template
	// csp is the Content-Security-Policy of every page.
	csp string
	// apiDocs is Deps.OpenAPI laid out for the API page.
	apiDocs *apiDocs
	// zones are the pages of accounts in other time zones (zone.go).
	zones zonePages
}

// Prefix is where the web application lives.
const Prefix = "/app"

// New builds the web application; Register adds its routes.
func New(cfg Config, deps Deps) *Web {
	if deps.CheckAudio == nil {
		panic("web.New: Deps.CheckAudio is required")
	}
	if deps.App.Commands.SetRetention == nil || deps.App.Queries.RetentionDays == nil {
		deps.App.Commands.SetRetention, deps.App.Queries.RetentionDays = nil, nil // offered with both
	}
	cmd, q := deps.App.Commands, deps.App.Queries
	for name, missing := range map[string]bool{
		"SignUp": cmd.SignUp == nil, "SignIn": cmd.SignIn == nil, "SignOut": cmd.SignOut == nil,
		"AcceptInvite": cmd.AcceptInvite == nil, "SetLanguage": cmd.SetLanguage == nil,
		"ChangePassword": cmd.ChangePassword == nil, "ResetPassword": cmd.ResetPassword == nil,
		"ForgotPassword": cmd.ForgotPassword == nil, "AllowPreview": cmd.AllowPreview == nil, "AllowCreate": cmd.AllowCreate == nil,
		"InviteMember": cmd.InviteMember == nil, "SetRole": cmd.SetRole == nil, "RemoveMember": cmd.RemoveMember == nil,
		"ResetLink": cmd.ResetLink == nil, "UpdateAccount": cmd.UpdateAccount == nil,
		"GenerateWebhookSecret": cmd.GenerateWebhookSecret == nil, "CreateAPIKey": cmd.CreateAPIKey == nil,
		"RevokeAPIKey": cmd.RevokeAPIKey == nil, "CreateChecklist": cmd.CreateChecklist == nil,
		"UpdateChecklist": cmd.UpdateChecklist == nil, "ArchiveChecklist": cmd.ArchiveChecklist == nil,
		"CreateJob": cmd.CreateJob == nil, "Resend": cmd.Resend == nil,
		"NameSpeakers": cmd.NameSpeakers == nil, "SendTestEvent": cmd.SendTestEvent == nil,
		"ResolveSession": q.ResolveSession == nil, "GetInvitation": q.GetInvitation == nil,
		"GetPasswordReset": q.GetPasswordReset == nil, "ListMembers": q.ListMembers == nil,
		"ListAPIKeys": q.ListAPIKeys == nil, "ListChecklists": q.ListChecklists == nil,
		"ShowChecklist": q.ShowChecklist == nil, "Usage": q.Usage == nil,
		"ListJobs": q.ListJobs == nil, "GetJob": q.GetJob == nil,
		"RecordingStatuses": q.RecordingStatuses == nil, "RecordingAudio": q.RecordingAudio == nil,
		"ExportJob": q.ExportJob == nil, "LiveAnalyses": q.LiveAnalyses == nil,
		"PreviewChecklist": q.PreviewChecklist == nil, "ReportChecklist": q.ReportChecklist == nil,
	} {
		if missing {
			panic("web.New: Deps.App's " + name + " is required")
		}
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.MaxFormBytes <= 0 {
		cfg.MaxFormBytes = 256 << 10
	}
	if cfg.CreateLimit <= 0 {
		cfg.CreateLimit = domain.DefaultCreateRateLimit
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = app.DefaultMaxUploadBytes
	}
	if cfg.HeadBytes <= 0 {
		cfg.HeadBytes = 16 << 10
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	docs, err := parseAPIDocs(deps.OpenAPI)
	if err != nil && deps.OpenAPI != nil {
		panic("web.New: " + err.Error())
	}
	w := &Web{cfg: cfg, deps: deps, commands: deps.App.Commands, queries: deps.App.Queries, log: deps.Logger, apiDocs: docs}
	w.csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; connect-src 'self'" +
		uploadOrigin(cfg.UploadOrigin) + "; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
	w.pages = parsePages(w.pageFuncs(cfg.Location))
	return w
}

func parsePages(funcs template.FuncMap) map[string]*template.Template {
	// Partials (part-*.html) are parsed with the layout, so that every page
	// may use them.
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/part-*.html"))
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || strings.HasPrefix(name, "part-") {
			continue
		}
		pages[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, n))
	}
	return pages
}

// Register adds the routes to r, a router for Prefix, in their groups
// (guards.go).
func (w *Web) Register(r fiber.Router) {
	r.Use(w.headers)
	public, signedIn, manage, scripts, scriptsManage := w.groups(r)
	public.get("", w.home)
	public.get("/", w.home)
	public.get("/static/:file", w.static)
	public.get("/lang", w.switchLang)
	public.get("/signin", w.signInPage)
	public.post("/signin", w.signIn)
	public.get("/signup", w.signUpPage)
	public.post("/signup", w.signUp)
	public.post("/signout", w.signOut)
	public.get("/invite/:token", w.invitePage)
	public.post("/invite/:token", w.acceptInvite)
	public.get("/forgot", w.forgotPage)
	public.post("/forgot", w.forgot)
	public.get("/reset/:token", w.resetPage)
	public.post("/reset/:token", w.resetPassword)
	public.get("/confirm/:token", w.confirmTrial)

	// Recordings: the history, a call's page, its audio and exports.
	signedIn.get("/recordings", w.history)
	scripts.get("/recordings/status", w.statuses)
	signedIn.get("/recordings/:docId", w.recording)
	scripts.get("/recordings/:docId/audio", w.audio)
	signedIn.get("/recordings/:docId/export/:format", w.exportRecording)
	signedIn.post("/recordings/bulk", w.bulk)
	manage.post("/recordings/:docId/deliveries/:id/resend", w.resend)
	manage.post("/recordings/:docId/delete", w.deleteRecording)
	scriptsManage.post("/recordings/new", w.createRecording)
	scriptsManage.post("/recordings/:docId/upload-url", w.uploadURL)
	// QA: speakers, reviews, checklists, analytics.
	signedIn.post("/recordings/:docId/speakers", w.nameSpeakers)
	signedIn.post("/recordings/:docId/review", w.review)
	signedIn.get("/checklists", w.checklists)
	manage.get("/checklists/new", w.newChecklist)
	manage.post("/checklists", w.saveChecklist)
	signedIn.get("/checklists/:id", w.editChecklist)
	manage.post("/checklists/:id", w.saveChecklist)
	manage.post("/checklists/:id/archive", w.archiveChecklist)
	signedIn.get("/analytics", w.analytics)
	// Settings: the account, API keys, receivers, usage, the API page.
	signedIn.get("/settings", w.settings)
	manage.post("/settings/retention", w.saveRetention)
	manage.post("/settings/calls", w.saveCalls)
	manage.post("/settings/columns", w.saveColumns)
	manage.post("/settings/receiver", w.saveReceiver)
	manage.post("/settings/keys", w.createKey)
	manage.post("/settings/keys/:id/revoke", w.revokeKey)
	manage.post("/settings/secret", w.generateSecret)
	manage.post("/settings/secret/hide", w.hideSecret)
	manage.post("/settings/test-event", w.sendTestEvent)
	signedIn.get("/usage", w.usage)
	signedIn.get("/api", w.apiPage)
	// People: the team and one's own password.
	signedIn.get("/team", w.team)
	manage.post("/team/invite", w.invite)
	manage.post("/team/:id/role", w.setRole)
	manage.post("/team/:id/remove", w.removeMember)
	manage.post("/team/:id/reset", w.resetLink)
	signedIn.get("/password", w.passwordPage)
	signedIn.post("/password", w.changePassword)
	r.Use(w.notFound)
}

// headers are the security headers of every page: only the service's own
// scripts, styles and media; no framing; no referrer leaving the site.
func (w *Web) headers(c *fiber.Ctx) error {
	c.Set("Content-Security-Policy", w.csp)
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderReferrerPolicy, "same-origin")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	return c.Next()
}

// view is what every page template receives.
type view struct {
	Lang    Lang
	Title   string
	Nav     string
	V       *app.Visitor
	CSRF    string
	Path    string // this page's path and query, for the language switch
	Error   string
	Flash   string
	SignUp  bool
	Data    any
	Status  int
	NoIndex bool
	// Loc is the visitor's account's time zone (the default signed out).
	Loc *time.Location
}

func (w *Web) lang(c *fiber.Ctx) Lang { return parseLang(c.Cookies(cookieLang)) }

func (w *Web) newView(c *fiber.Ctx, v *app.Visitor, titleKey, nav string) *view {
	lang := w.lang(c)
	vw := &view{Lang: lang, Title: text(lang, titleKey), Nav: nav, V: v, Path: string(c.Request().URI().RequestURI()), SignUp: w.cfg.SignUp}
	if v != nil {
		vw.CSRF = v.Session.CSRF
	}
	vw.Loc = w.zoneOf(v)
	return vw
}

// render writes a page.
func (w *Web) render(c *fiber.Ctx, page string, vw *view) error {
	t, ok := w.pagesIn(vw.Loc)[page]
	if !ok {
		return fmt.Errorf("web: no page %q", page)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", vw); err != nil {
		w.log.Error("render page", "page", page, "err", err)
		return w.serverError(c, err)
	}
	if vw.Status != 0 {
		c.Status(vw.Status)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Send(buf.Bytes())
}

// Cookies. The session cookie holds a random token (the store keeps only
// its hash); the anonymous CSRF cookie guards the sign-in and sign-up forms.
const (
	cookieSession = "hyscribe_session"
	cookieCSRF    = "hyscribe_csrf"
	cookieLang    = "hyscribe_lang"
)

func (w *Web) sessionCookieName() string {
	if w.cfg.SecureCookies {
		return "__Host-" + cookieSession
	}
	return cookieSession
}

func (w *Web) setCookie(c *fiber.Ctx, name, value string, maxAge time.Duration, sameSite string) {
	ck := &fiber.Cookie{Name: name, Value: value, Path: "/", HTTPOnly: true, Secure: w.cfg.SecureCookies, SameSite: sameSite}
	if maxAge > 0 {
		ck.MaxAge = int(maxAge.Seconds())
		ck.Expires = time.Now().Add(maxAge)
	} else if maxAge < 0 {
		ck.MaxAge = -1
		ck.Expires = time.Unix(0, 0)
	}
	c.Cookie(ck)
}

// visitor resolves the session cookie; nil when nobody is signed in.
func (w *Web) visitor(c *fiber.Ctx) (*app.Visitor, error) {
	token := c.Cookies(w.sessionCookieName())
	if token == "" {
		return nil, nil
	}
	v, err := w.queries.ResolveSession.Handle(c.UserContext(), token)
	if errors.Is(err, domain.ErrUnauthorized) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// form reads a URL-encoded form body of bounded size.
func (w *Web) form(c *fiber.Ctx) (url.Values, error) {
	n := c.Request().Header.ContentLength()
	// n < 0 is a chunked body of unknown size: browsers never send forms so.
	if n < 0 || n > w.cfg.MaxFormBytes {
		return nil, errFormTooLarge
	}
	ct := string(c.Request().Header.ContentType())
	if n > 0 && !strings.HasPrefix(ct, fiber.MIMEApplicationForm) {
		return nil, errBadForm
	}
	f, err := url.ParseQuery(string(c.Body()))
	if err != nil {
		return nil, err
	}
	if err := checkFormText(f); err != nil {
		return nil, err
	}
	return f, nil
}

var (
	errFormTooLarge = errors.New("form too large")
	errBadForm      = errors.New("not a form")
	errCSRF         = errors.New("csrf token mismatch")
)

// sameOrigin refuses a request whose Origin (sent by browsers on every
// POST) is another site: a second guard beside the token.
func sameOrigin(c *fiber.Ctx) bool {
	o := c.Get(fiber.HeaderOrigin)
	if o == "" || o == "null" {
		return o == ""
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == c.Hostname()
}

// checkCSRF checks a signed-in form's token.
func checkCSRF(c *fiber.Ctx, f url.Values, v *app.Visitor) error {
	tok := f.Get("_csrf")
	if !sameOrigin(c) || tok == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(v.Session.CSRF)) != 1 {
		return errCSRF
	}
	return nil
}

// anonCSRF gives a signed-out form its token: the value of a cookie that
// only this site can set, which the form must repeat.
func (w *Web) anonCSRF(c *fiber.Ctx) string {
	if t := c.Cookies(cookieCSRF); len(t) >= 32 {
		return t
	}
	t := app.NewID() + app.NewID()
	w.setCookie(c, cookieCSRF, t, 24*time.Hour, "Strict")
	return t
}

func checkAnonCSRF(c *fiber.Ctx, f url.Values) error {
	ck, tok := c.Cookies(cookieCSRF), f.Get("_csrf")
	if !sameOrigin(c) || ck == "" || subtle.ConstantTimeCompare([]byte(ck), []byte(tok)) != 1 {
		return errCSRF
	}
	return nil
}

// postForm reads a signed-in form and checks its token; its error is a
// badForm, which fail answers.
func (w *Web) postForm(c *fiber.Ctx, v *app.Visitor) (url.Values, error) {
	f, err := w.form(c)
	if err == nil {
		err = checkCSRF(c, f, v)
	}
	if err != nil {
		return nil, badForm{err}
	}
	return f, nil
}

// button is a button pressed on a page (a form with nothing but its
// CSRF token): do runs the change and names the page to go to next.
func (w *Web) button(c *fiber.Ctx, do func(v *app.Visitor) (next string, err error)) error {
	v := visitorOf(c)
	if _, err := w.postForm(c, v); err != nil {
		return err
	}
	next, err := do(v)
	if err != nil {
		return err
	}
	return c.Redirect(next, fiber.StatusSeeOther)
}

func (w *Web) formError(c *fiber.Ctx, v *app.Visitor, err error) error {
	vw := w.newView(c, v, "err.title", "")
	switch {
	case errors.Is(err, errFormTooLarge):
		vw.Status, vw.Error = fiber.StatusRequestEntityTooLarge, text(vw.Lang, "err.toolarge")
	case errors.Is(err, errCSRF):
		vw.Status, vw.Error = fiber.StatusForbidden, text(vw.Lang, "err.csrf")
	default:
		vw.Status, vw.Error = fiber.StatusBadRequest, err.Error()
	}
	return w.render(c, "error", vw)
}

// notFound is every unknown page, and every recording of another account:
// the same answer, so nobody learns which docIds exist.
func (w *Web) notFound(c *fiber.Ctx) error {
	v, _ := w.visitor(c)
	vw := w.newView(c, v, "err.notfound", "")
	vw.Status, vw.Error = fiber.StatusNotFound, text(vw.Lang, "err.notfound.body")
	return w.render(c, "error", vw)
}

// serverError is the page of a request that failed on the server's side:
// 500, or 503 with Retry-After when the cause is an outage (outage).
func (w *Web) serverError(c *fiber.Ctx, err error) error {
	w.log.Error("web request failed", "method", c.Method(), "path", c.Path(), "err", err)
	lang := w.lang(c)
	status, titleKey, msgKey := fiber.StatusInternalServerError, "err.title", "err.server"
	if o := outage(c, err); o != "" {
		status, titleKey, msgKey = fiber.StatusServiceUnavailable, "err.unavailable.title", o
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(domain.RetryAfterUnavailable))
	}
	vw := &view{Lang: lang, Title: text(lang, titleKey), Status: status, Error: text(lang, msgKey)}
	t := w.pages["error"]
	var buf bytes.Buffer
	if t == nil || t.ExecuteTemplate(&buf, "layout", vw) != nil {
		return c.Status(status).SendString(text(lang, msgKey))
	}
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Send(buf.Bytes())
}

// outage is the one place the web application tells an outage from a
// fault: a store or other dependency unavailable (down, silent past the
// request's deadline) or out of space. It returns the message key of the
// answer, "" when err is no outage. Such a request is answered 503 with
// Retry-After (serverError, jsonError), since trying again soon works.
func outage(c *fiber.Ctx, err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, domain.ErrStorageFull):
		return "err.storagefull"
	case errors.Is(err, domain.ErrUnavailable), errors.Is(err, context.DeadlineExceeded),
		errors.Is(c.UserContext().Err(), context.DeadlineExceeded):
		return "err.unavailable"
	}
	return ""
}

// localPath keeps a redirect target on this site's web application.
func localPath(p string) string {
	if (p != Prefix && !strings.HasPrefix(p, Prefix+"/")) || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
		return Prefix + "/recordings"
	}
	if u, err := url.Parse(p); err != nil || u.Host != "" || u.Scheme != "" {
		return Prefix + "/recordings"
	}
	return p
}

// static serves the embedded stylesheet and script.
func (w *Web) static(c *fiber.Ctx) error {
	name := c.Params("file")
	b, err := staticFS.ReadFile("static/" + name)
	if err != nil || strings.Contains(name, "/") {
		return c.Status(fiber.StatusNotFound).JSON(fiber.Map{"error": "no such file"})
	}
	switch {
	case strings.HasSuffix(name, ".css"):
		c.Set(fiber.HeaderContentType, "text/css; charset=utf-8")
	case strings.HasSuffix(name, ".js"):
		c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
	case strings.HasSuffix(name, ".svg"):
		c.Set(fiber.HeaderContentType, "image/svg+xml")
	default:
		c.Set(fiber.HeaderContentType, "application/octet-stream")
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.Send(b)
}
