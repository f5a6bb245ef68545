package web

import (
	"errors"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/domain"
)

// The review form (issue 36) names its fields after the question ids:
// "answer.<id>" and "reason.<id>", with "comment" for the call.
const (
	reviewAnswerField = "answer."
	reviewReasonField = "reason."
)

// reviewFormKey keeps a refused review's form for the page shown again, so
// that what the analyst wrote is not lost.
const reviewFormKey = "review-form"

// review records a review of a call: POST /app/recordings/:docId/review.
// Who may review is the use case's rule (app.ReviewCall).
func (w *Web) review(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	doc := domain.DocID(c.Params("docId"))
	in := domain.ReviewInput{Choices: map[string]domain.ReviewChoice{}, Comment: f.Get("comment")}
	for k := range f {
		if qid, ok := strings.CutPrefix(k, reviewAnswerField); ok {
			in.Choices[qid] = domain.ReviewChoice{Answer: f.Get(k), Reason: f.Get(reviewReasonField + qid)}
		}
	}
	_, _, err = w.commands.ReviewCall.Handle(c.UserContext(), v.Account.ID, v.User, doc, in)
	switch {
	case errors.Is(err, domain.ErrForbidden):
		vw := w.newView(c, v, "err.forbidden", "")
		vw.Status, vw.Error = fiber.StatusForbidden, text(vw.Lang, "review.owneronly")
		return w.render(c, "error", vw)
	case errors.Is(err, domain.ErrValidation):
		c.Locals(reviewFormKey, f)
		return w.renderRecording(c, v, doc, err)
	case err != nil:
		return err
	}
	return c.Redirect(Prefix+"/recordings/"+url.PathEscape(string(doc))+"?saved=reviewed#analysis", fiber.StatusSeeOther)
}

// reviewRows adds to rows what the form shows for each question: the
// current review's answer, and the values the form starts with (a refused
// form's, else the review's, else the machine's answer).
func reviewRows(rows []questionRow, d *recordingData, form url.Values) {
	for i := range rows {
		r := &rows[i]
		r.FormAnswer = r.Answer
		if d.Reviewed != nil && d.Review != nil {
			ra := d.Review.Answers[r.ID]
			r.Reviewed = &ra
			r.ReviewedScore = d.Reviewed.Results[r.ID].Score
			r.FormAnswer, r.FormReason = ra.Answer, ra.Reason
		}
		if form != nil {
			r.FormAnswer, r.FormReason = form.Get(reviewAnswerField+r.ID), form.Get(reviewReasonField+r.ID)
		}
	}
	d.FormComment = ""
	if d.Review != nil && !d.Review.Stale {
		d.FormComment = d.Review.Comment
	}
	if form != nil {
		d.FormComment = form.Get("comment")
	}
}
