package web

import (
	"errors"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// saveCalls saves the account's time zone and the stereo channel its
// agents are on (Settings, "Calls"; owners only).
func (w *Web) saveCalls(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	zone, channel := f.Get("timeZone"), f.Get("agentChannel")
	if zone == w.cfg.Location.String() {
		zone = "" // the deployment's: follows the operator's setting
	}
	return w.saveAccount(c, v, app.AccountChanges{TimeZone: &zone, AgentChannel: &channel}, "calls", nil)
}

// nameSpeakers saves the roles and names people gave a phone call's
// speakers on its page (the roles domain.Role.MayNameSpeakers allows,
// checked by the use case: a role change re-analyses the call and sends
// the account's receiver an event). When a role changed, a call already
// analysed with questions limited to a role is analysed again.
func (w *Web) nameSpeakers(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	doc := domain.DocID(c.Params("docId"))
	names := map[string]domain.SpeakerName{}
	for _, sp := range []string{"1", "2"} {
		names[sp] = domain.SpeakerName{Role: domain.SpeakerRole(f.Get("role" + sp)), Name: f.Get("name" + sp)}
	}
	changed, err := w.commands.NameSpeakers.Handle(c.UserContext(), v.Account.ID, v.User.Role, doc, names)
	switch {
	case errors.Is(err, domain.ErrForbidden):
		vw := w.newView(c, v, "err.forbidden", "")
		vw.Status, vw.Error = fiber.StatusForbidden, text(vw.Lang, "speaker.owneronly")
		return w.render(c, "error", vw)
	case errors.Is(err, domain.ErrValidation), errors.Is(err, domain.ErrRateLimited):
		return w.renderRecording(c, v, doc, err)
	case err != nil:
		return err
	}
	saved := "speakers"
	if changed && w.commands.Reanalyze != nil {
		again, err := w.commands.Reanalyze.Reanalyze(c.UserContext(), v.Account.ID, doc)
		if err != nil {
			return err
		}
		if again {
			saved = "reanalysed"
		}
	}
	return c.Redirect(Prefix+"/recordings/"+url.PathEscape(string(doc))+"?saved="+saved+"#speakers", fiber.StatusSeeOther)
}

// speakerWho is a transcript line's or an evidence's speaker label in the
// page's language with what people call the speaker: "Speaker 2 · Agent
// (Ani)". s is "2" or the analysers' "Խոսնակ 2"; without a role or a name
// it is the plain label, so a copied line still reads "Խոսնակ 1: …".
func speakerWho(l Lang, roles map[string]domain.SpeakerName, s string) string {
	if s == "" {
		return ""
	}
	n, _ := strings.CutPrefix(s, domain.SpeakerLabel+" ")
	label := text(l, "one.speaker") + " " + n
	who := roles[n]
	switch {
	case who.Role != "" && who.Name != "":
		return label + " · " + text(l, "speaker.role."+string(who.Role)) + " (" + inert(who.Name) + ")"
	case who.Role != "":
		return label + " · " + text(l, "speaker.role."+string(who.Role))
	case who.Name != "":
		return label + " · " + inert(who.Name)
	}
	return label
}

// evidenceWho is speakerWho for an evidence line's speaker (nil: none).
func evidenceWho(l Lang, roles map[string]domain.SpeakerName, s *string) string {
	if s == nil {
		return ""
	}
	return speakerWho(l, roles, *s)
}

// answerReason is an answer's reason in the page's language when it is one
// the service wrote itself (a role nobody has in the call), else as the
// analyser wrote it.
func answerReason(l Lang, reason string) string {
	for _, r := range []domain.SpeakerRole{domain.SpeakerAgent, domain.SpeakerCustomer} {
		if reason == domain.RoleUnknownReason(r) {
			return text(l, "speaker.unknown."+string(r))
		}
	}
	switch {
	case l == LangEn:
		return reason
	case reason == domain.ReasonNoPhrases:
		return text(l, "reason.nophrases")
	case reason == domain.ReasonApproximate:
		return text(l, "reason.approximate")
	}
	// The chat-model analyser's own reasons (adapters/llm) are English.
	if l != LangEn && strings.HasPrefix(reason, "the chat model") {
		return text(l, "reason.model")
	}
	return reason
}
