package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// createRecording is the "New recording" form's request for one file,
// sent by static/upload.js: POST /app/recordings/new with the job's type,
// checklist and metadata, the file's size and its first bytes. It creates
// the job through the API's own use case (same plan, role and validation
// rules, app.CreateJob) with a typed command
// and answers {"docId","uploadUrl"}; the browser then PUTs the file to
// uploadUrl, as an API client does. A file the process stage would refuse
// is refused here, before the job exists, with the stage's reason. Errors
// are JSON {"error","code"} in the page's language.
func (w *Web) createRecording(c *fiber.Ctx) error {
	v, lang := visitorOf(c), w.lang(c)
	actor := app.PersonActor(v)
	if w.commands.CreateJob.Allowed(actor) != nil { // the use case's role rule, asked before the form is read
		return w.jsonError(c, fiber.StatusForbidden, "owner_only", text(lang, "set.owneronly"), nil)
	}
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	size, err := strconv.ParseInt(f.Get("size"), 10, 64)
	head, err2 := base64.StdEncoding.DecodeString(f.Get("head"))
	if err != nil || err2 != nil || size < 0 || int64(len(head)) > size || (len(head) < w.cfg.HeadBytes && int64(len(head)) < size) {
		return w.jsonError(c, fiber.StatusBadRequest, "bad_file", text(lang, "up.err.badfile"), nil)
	}
	if size > w.cfg.MaxUploadBytes {
		return w.jsonError(c, fiber.StatusRequestEntityTooLarge, "too_large", tf(lang, "up.err.toolarge", w.cfg.MaxUploadBytes>>20), nil)
	}
	if err := w.deps.CheckAudio(head, size); err != nil {
		// The code is the reason's stable one (domain.JobFailure); an
		// Armenian page gets the code's sentence, an English one the
		// stage's own after "Only MP3 is accepted".
		msg := tf(lang, "up.err.notmp3", err.Error())
		if lang != LangEn {
			msg = failureText(lang, err.Error())
		}
		return w.jsonError(c, fiber.StatusUnprocessableEntity, domain.JobFailure(err.Error()).Code, msg, nil)
	}
	req, err := createRequest(f.Get("type"), f.Get("checklistId"), f.Get("metadata"))
	var bad *badMetadataLine
	if errors.As(err, &bad) {
		return w.jsonError(c, fiber.StatusBadRequest, "invalid_metadata", tf(lang, "up.err.metadata.line", bad.n, clipRunes(bad.text, 60)), nil)
	}
	if err != nil {
		return w.jsonError(c, fiber.StatusBadRequest, "invalid_metadata", text(lang, "up.err.metadata"), nil)
	}
	if err := w.commands.AllowCreate.Handle(c.UserContext(), v.User.ID, w.cfg.CreateLimit); err != nil {
		var rl *app.RateLimitError
		if errors.As(err, &rl) {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(rl.RetryAfter))
			return w.jsonError(c, fiber.StatusTooManyRequests, "rate_limited", text(lang, "err.ratelimited"), nil)
		}
		return err
	}
	res, _, err := w.commands.CreateJob.Handle(c.UserContext(), actor, app.CreateCommand{Request: req, Filename: f.Get("filename")})
	var ve *domain.ValidationError
	switch {
	case errors.Is(err, domain.ErrConflict): // too many jobs waiting for their upload
		return w.jsonError(c, fiber.StatusConflict, "too_many_waiting", tf(lang, "up.err.waiting", domain.MaxWaitingUploads), nil)
	case errors.As(err, &ve):
		return w.jsonError(c, fiber.StatusBadRequest, ve.Code, validationText(lang, "up.err.", ve), nil)
	case errors.Is(err, domain.ErrForbidden):
		return w.jsonError(c, fiber.StatusForbidden, "not_business", text(lang, "up.err.plan"), nil)
	case err != nil:
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(res)
}

// createRequest is the job the form's fields ask for, which the use case
// checks as it checks the API's. Metadata is either a JSON object or
// "key = value" lines (values kept as strings), the way people write it;
// either reaches the use case as the API's body would carry it: a JSON
// object as written (the use case compacts it), lines as an object of
// their keys, sorted, with no escapes the person did not write.
func createRequest(typ, checklist, metadata string) (domain.CreateRequest, error) {
	req := domain.CreateRequest{Type: domain.JobType(typ), ChecklistID: checklist}
	var meta any
	if m := strings.TrimSpace(metadata); strings.HasPrefix(m, "{") {
		meta = json.RawMessage(m)
	} else if m != "" {
		obj := map[string]string{}
		for i, line := range strings.Split(m, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			k, val, ok := strings.Cut(line, "=")
			if !ok {
				k, val, ok = strings.Cut(line, ":")
			}
			if !ok || strings.TrimSpace(k) == "" {
				return domain.CreateRequest{}, &badMetadataLine{n: i + 1, text: strings.TrimSpace(line)}
			}
			obj[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
		meta = obj
	}
	if raw, ok := meta.(json.RawMessage); ok && !json.Valid(raw) { // starts with { but is not JSON
		return domain.CreateRequest{}, errors.New("metadata is not JSON")
	}
	if meta != nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(meta); err != nil {
			return domain.CreateRequest{}, err
		}
		req.Metadata = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	return req, nil
}

// jsonError answers a script's request; cause (if any) goes to the log.
func (w *Web) jsonError(c *fiber.Ctx, status int, code, msg string, cause error) error {
	if cause != nil {
		w.log.Error("web request failed", "method", c.Method(), "path", c.Path(), "err", cause)
	}
	if o := outage(c, cause); o != "" && status == fiber.StatusInternalServerError {
		status, code, msg = fiber.StatusServiceUnavailable, "unavailable", text(w.lang(c), o)
		if o == "err.storagefull" {
			code = "storage_full"
		}
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(domain.RetryAfterUnavailable))
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(status).JSON(fiber.Map{"error": msg, "code": code})
}

// badMetadataLine is a metadata line that is not "key = value": the form
// names it (1-based, counting blank lines, as the person sees them).
type badMetadataLine struct {
	n    int
	text string
}

func (e *badMetadataLine) Error() string {
	return fmt.Sprintf("metadata line %d (%q) is not key = value", e.n, e.text)
}
