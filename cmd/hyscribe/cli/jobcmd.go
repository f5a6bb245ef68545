package cli

import (
	"context"
	"flag"
	"io"
	"net/url"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// jobCmd is `hyscribe job show --doc ID`: a job's way through the pipeline,
// from the store, as JSON.
func jobCmd(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "show" {
		return subcommandError("job", args, "show")
	}
	fs := flag.NewFlagSet("job show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	doc := fs.String("doc", "", "the job's docId")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *doc == "" {
		return usageErrorf("job show: --doc is required")
	}
	store, err := openProvisioningStore(ctx, cfg, stderr, false) // a job needs a store that has it
	if err != nil {
		return err
	}
	defer store.Close()
	r, err := app.NewShowJob(store, store, store, store).Handle(ctx, domain.DocID(*doc))
	if err != nil {
		return err
	}
	return writeJSON(stdout, jobReportJSON(r))
}

// jobReportJSON is what job show prints: identifiers, states, times,
// errors and delivery outcomes; never the transcript, the metadata, a
// payload or a secret (a receiver's URL loses its query, which may hold a
// token).
func jobReportJSON(r app.JobReport) map[string]any {
	j := r.Job
	states := make([]map[string]any, 0, len(r.States))
	for _, s := range r.States {
		m := map[string]any{"status": s.Status, "at": s.At}
		if s.Error != "" {
			m["error"] = s.Error
		}
		states = append(states, m)
	}
	events := make([]map[string]any, 0, len(r.Events))
	for _, e := range r.Events {
		m := map[string]any{"eventId": e.EventID, "type": e.Type, "topic": e.Topic, "at": e.At}
		if e.Status != "" {
			m["status"] = e.Status
		}
		if e.Note != "" {
			m["note"] = e.Note
		}
		events = append(events, m)
	}
	deliveries := make([]map[string]any, 0, len(r.Deliveries))
	for _, d := range r.Deliveries {
		target := d.URL
		if u, err := url.Parse(d.URL); err == nil {
			u.RawQuery, u.Fragment, u.User = "", "", nil
			target = u.String()
		}
		deliveries = append(deliveries, map[string]any{
			"eventType": d.EventType, "eventId": d.EventID, "url": target, "status": d.Status,
			"httpStatus": d.HTTPStatus, "latencyMs": d.LatencyMs, "error": d.Error,
			"createdAt": d.CreatedAt, "attemptedAt": d.AttemptedAt,
		})
	}
	out := map[string]any{
		"docId": j.ID, "accountId": j.AccountID, "type": j.Type, "status": j.Status, "error": j.Error,
		"createdAt": j.CreatedAt, "updatedAt": j.UpdatedAt, "duration": j.Duration(), "redrives": j.Redrives,
		"checklistId": j.ChecklistID, "states": states, "events": events, "deliveries": deliveries,
	}
	if r.HistoryMissing {
		out["historyMissing"] = true
	}
	if a := r.Analysis; a != nil {
		out["analysis"] = map[string]any{"analysisId": a.ID, "status": a.Status, "error": a.Error,
			"checklistVersion": a.ChecklistVersion, "createdAt": a.CreatedAt}
	}
	return out
}
