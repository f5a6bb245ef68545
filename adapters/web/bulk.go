package web

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// Owning a file from upload to deletion (issue 27): owners delete one
// recording (an interrupted upload is cancelled the same way) or many, and
// anyone signed in downloads a ZIP of chosen recordings' transcripts with
// a CSV of their checklist scores.

// MaxBulk is how many recordings one bulk action takes (a history page
// shows at most 100).
const MaxBulk = 200

// deleteRecording is POST /app/recordings/{docId}/delete: the API's
// deletion (the recording, its audio, transcript, analysis and deliveries
// go; a tombstone stays). A script asking for JSON gets {"deleted": true}.
func (w *Web) deleteRecording(c *fiber.Ctx) error {
	if w.commands.DeleteJob == nil {
		return domain.ErrNotFound
	}
	v := visitorOf(c)
	if _, err := w.postForm(c, v); err != nil {
		return err
	}
	err := w.commands.DeleteJob.Delete(c.UserContext(), v.Account.ID, domain.DocID(c.Params("docId")), domain.DeletedOnRequest)
	if err != nil {
		return err
	}
	if strings.Contains(c.Get(fiber.HeaderAccept), fiber.MIMEApplicationJSON) {
		return c.JSON(fiber.Map{"docId": c.Params("docId"), "deleted": true})
	}
	return c.Redirect(Prefix+"/recordings?deleted=1", fiber.StatusSeeOther)
}

// uploadURL is POST /app/recordings/{docId}/upload-url: a new signed
// address for a recording still waiting for its file, so an upload cut
// short can be sent again after the page was reloaded (the file picked
// anew). JSON {"uploadUrl"}; 409 once the job no longer waits.
func (w *Web) uploadURL(c *fiber.Ctx) error {
	v := visitorOf(c)
	if _, err := w.postForm(c, v); err != nil {
		return err
	}
	u, err := w.commands.CreateJob.UploadURL(c.UserContext(), v.Account.ID, domain.DocID(c.Params("docId")))
	if errors.Is(err, domain.ErrConflict) {
		return w.jsonError(c, fiber.StatusConflict, "not_waiting", text(w.lang(c), "up.err.notwaiting"), nil)
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"uploadUrl": u})
}

// bulk is POST /app/recordings/bulk: the history's chosen rows (doc,
// repeated) with action "delete" (owners) or "export" (a ZIP in format).
func (w *Web) bulk(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	var docs []domain.DocID
	seen := map[string]bool{}
	for _, d := range f["doc"] {
		if d != "" && !seen[d] && domain.PlausibleID(d) {
			seen[d] = true
			docs = append(docs, domain.DocID(d))
		}
	}
	lang := w.lang(c)
	if f.Get("all") == "1" {
		// "Select all matching": every call the history's filter keeps,
		// bounded by the use case (app.MaxBulkSelection).
		vals, _ := url.ParseQuery(f.Get("filter"))
		hf := historyFilterOfValues(vals)
		q, _ := w.historyQuery(v, lang, &hf)
		all, err := w.queries.ListJobs.Matching(c.UserContext(), app.PersonActor(v), q)
		if err != nil {
			return err
		}
		docs = all
	}
	limit := MaxBulk // ticked rows
	if f.Get("all") == "1" {
		limit = app.MaxBulkSelection
	}
	if len(docs) == 0 || len(docs) > limit {
		vw := w.newView(c, v, "err.title", "recordings")
		vw.Status, vw.Error = fiber.StatusBadRequest, tf(lang, "bulk.err.count", MaxBulk)
		return w.render(c, "error", vw)
	}
	switch f.Get("action") {
	case "delete":
		if v.User.Role != domain.RoleOwner || w.commands.DeleteJob == nil {
			return domain.ErrForbidden
		}
		n := 0
		for _, d := range docs {
			err := w.commands.DeleteJob.Delete(c.UserContext(), v.Account.ID, d, domain.DeletedOnRequest)
			if errors.Is(err, domain.ErrNotFound) {
				continue // another account's, or deleted meanwhile: the same to this page
			}
			if err != nil {
				return err
			}
			n++
		}
		return c.Redirect(Prefix+"/recordings?deleted="+strconv.Itoa(n), fiber.StatusSeeOther)
	case "export":
		format, err := domain.ParseExportFormat(f.Get("format"))
		if err != nil {
			return badForm{err}
		}
		body, err := w.exportZip(c, v, docs, format)
		if err != nil {
			return err
		}
		name := "hyscribe-" + time.Now().In(w.zoneOf(v)).Format("2006-01-02-1504") + ".zip"
		c.Set(fiber.HeaderContentType, "application/zip")
		c.Set(fiber.HeaderContentDisposition, domain.ContentDisposition(name))
		c.Set(fiber.HeaderCacheControl, "private, no-store")
		return c.Send(body)
	}
	return badForm{errors.New("unknown action")}
}

// exportZip writes the chosen recordings' transcripts in format (those
// transcribed; names from the uploaded files, made unique) and
// scores.csv, one row per chosen recording of the account.
func (w *Web) exportZip(c *fiber.Ctx, v *app.Visitor, docs []domain.DocID, format domain.ExportFormat) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	var table []scoredRecording
	used := map[string]int{}
	for _, d := range docs {
		rec, err := w.queries.GetJob.Handle(c.UserContext(), app.PersonActor(v), app.GetCommand{DocID: d, Page: true})
		if errors.Is(err, domain.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		j := rec.Job
		file := ""
		if j.Status == domain.StatusTranscribed {
			ex, err := w.queries.ExportJob.Handle(c.UserContext(), app.PersonActor(v), app.ExportCommand{DocID: d, Format: string(format)})
			if err != nil {
				return nil, fmt.Errorf("export %s: %w", d, err)
			}
			file = uniqueName(used, ex.Name)
			fw, err := z.CreateHeader(&zip.FileHeader{Name: file, Method: zip.Deflate, Modified: j.CreatedAt, NonUTF8: false})
			if err != nil {
				return nil, err
			}
			if _, err := fw.Write(ex.Body); err != nil {
				return nil, err
			}
		}
		table = append(table, scoredRecording{Rec: rec, File: file})
	}
	fw, err := z.Create("scores.csv")
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(scoresCSV(table, w.zoneOf(v), w.cfg.PublicURL)); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// uniqueName keeps two recordings of one file name apart: "a.srt",
// "a (2).srt", …
func uniqueName(used map[string]int, name string) string {
	used[name]++
	if used[name] == 1 {
		return name
	}
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name, ext = name[:i], name[i:]
	}
	return uniqueName(used, fmt.Sprintf("%s (%d)%s", name, used[name+ext], ext))
}

// deletedFlash is the history's note after a deletion.
func deletedFlash(lang Lang, q string) string {
	n, err := strconv.Atoi(q)
	if err != nil || n < 0 {
		return ""
	}
	return tf(lang, "bulk.deleted", n)
}
