package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/hyscribe/hyscribe/client"
)

// transcribeFormats maps --format to the export format.
// "txt" is the API's name of the format, "text" the command's: both work.
var transcribeFormats = map[string]string{"text": client.FormatTXT, "txt": client.FormatTXT, "srt": client.FormatSRT, "vtt": client.FormatVTT, "json": client.FormatJSON}

// transcribeCmd is `hyscribe transcribe FILE …`: a client of a running
// service (HYSCRIBE_URL, HYSCRIBE_API_KEY) that creates a job, uploads FILE,
// waits with a progress line on stderr and prints the result on stdout.
func transcribeCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("transcribe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // Run prints the command's help on a usage error
	typ := fs.String("type", "", "single_voice or phone_call (required)")
	metadata := fs.String("metadata", "", "a JSON object attached to the job")
	checklist := fs.String("checklist", "", "checklist ID to analyse the transcript against")
	format := fs.String("format", "text", "text (or txt), srt, vtt or json")
	poll := fs.Duration("poll", 5*time.Second, "time between polls")
	// Flags may come before or after FILE.
	var files []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return &UsageError{Err: fmt.Errorf("transcribe: %w", err)}
		}
		if rest = fs.Args(); len(rest) == 0 {
			break
		}
		files, rest = append(files, rest[0]), rest[1:]
	}
	if len(files) != 1 {
		return usageErrorf("transcribe: name exactly one MP3 file")
	}
	exportFormat, ok := transcribeFormats[*format]
	if !ok {
		return usageErrorf("transcribe: --format must be text (or txt), srt, vtt or json, not %q", *format)
	}
	if *typ != string(client.SingleVoice) && *typ != string(client.PhoneCall) {
		return usageErrorf("transcribe: --type must be single_voice or phone_call, not %q", *typ)
	}
	req := client.CreateRequest{Type: client.JobType(*typ), ChecklistID: *checklist}
	if *metadata != "" {
		if !json.Valid([]byte(*metadata)) {
			return errors.New("transcribe: --metadata is not JSON")
		}
		req.Metadata = json.RawMessage(*metadata)
	}
	base, key := getenv("HYSCRIBE_URL"), getenv("HYSCRIBE_API_KEY")
	if base == "" || key == "" {
		return errors.New("transcribe: set HYSCRIBE_URL (the service's address) and HYSCRIBE_API_KEY")
	}
	c := client.New(base, key, client.WithPollInterval(*poll))

	created, err := c.Create(ctx, req)
	if err != nil {
		return fmt.Errorf("transcribe: create: %w", err)
	}
	fmt.Fprintf(stderr, "%s: uploading %s\n", created.DocID, files[0])
	if err := c.UploadFile(ctx, created.UploadURL, files[0]); err != nil {
		return fmt.Errorf("transcribe: upload: %w", err)
	}
	start, last := time.Now(), ""
	job, err := c.Wait(ctx, created.DocID, func(j client.Job) {
		if j.Status != last {
			last = j.Status
			fmt.Fprintf(stderr, "%s: %s (%s)\n", j.DocID, j.Status, time.Since(start).Round(time.Second))
		}
	})
	if err != nil {
		return fmt.Errorf("transcribe: waiting for %s: %w", created.DocID, err)
	}
	if job.Status == client.StatusFailed {
		reason := "no reason given"
		if job.Error != nil {
			reason = *job.Error
		}
		return fmt.Errorf("transcribe: %s failed: %s", job.DocID, reason)
	}
	out, err := c.Export(ctx, job.DocID, exportFormat)
	if err != nil {
		return fmt.Errorf("transcribe: export: %w", err)
	}
	_, err = stdout.Write(out)
	return err
}
