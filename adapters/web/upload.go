package web

import (
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
// the job through the API's own use case (same plan and validation rules)
// and answers {"docId","uploadUrl"}; the browser then PUTs the file to
// uploadUrl, as an API client does. A file the process stage would refuse
// is refused here, before the job exists, with the stage's reason. Errors
// are JSON {"error","code"} in the page's language.
func (w *Web) createRecording(c *fiber.Ctx) error {
	v, lang := visitorOf(c), w.lang(c)
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
	body, err := createBody(f.Get("type"), f.Get("checklistId"), f.Get("metadata"))
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
	res, err := w.commands.CreateJob.HandleFile(c.UserContext(), app.Principal{Account: v.Account}, body, f.Get("filename"))
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

// createBody is the API's createTranscription body of the form's fields.
// Metadata is either a JSON object or "key = value" lines (values kept as
// strings), the way people write it.
func createBody(typ, checklist, metadata string) ([]byte, error) {
	req := map[string]any{"type": typ}
	if checklist != "" {
		req["checklistId"] = checklist
	}
	if m := strings.TrimSpace(metadata); strings.HasPrefix(m, "{") {
		req["metadata"] = json.RawMessage(m)
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
				return nil, &badMetadataLine{n: i + 1, text: strings.TrimSpace(line)}
			}
			obj[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
		req["metadata"] = obj
	}
	b, err := json.Marshal(req)
	if err != nil { // metadata that starts with { but is not JSON
		return nil, err
	}
	return b, nil
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
