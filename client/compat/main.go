// Command integrator transcribes one MP3 with the hyscribe Go client, as
// a customer's program would: HYSCRIBE_URL and HYSCRIBE_API_KEY name the
// service, the argument the file.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hyscribe/hyscribe/client"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: integrator FILE.mp3")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Getenv("HYSCRIBE_URL"), os.Getenv("HYSCRIBE_API_KEY"), os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, base, key, path string) error {
	c := client.New(base, key, client.WithUserAgent("integrator/1.0"), client.WithPollInterval(50*time.Millisecond))
	j, err := c.Transcribe(ctx, path, client.TranscribeOptions{Type: client.PhoneCall, Metadata: []byte(`{"crm":"A-1"}`)})
	if err != nil {
		return err
	}
	tr, err := c.ExportTranscript(ctx, j.DocID)
	if err != nil {
		return err
	}
	for _, w := range tr.Words {
		speaker := ""
		if w.Speaker != nil {
			speaker = *w.Speaker
		}
		fmt.Printf("%.3f\t%s\t%s\n", w.Start, speaker, w.Word)
	}
	page, err := c.List(ctx, client.ListOptions{Status: client.StatusTranscribed, Limit: 1})
	if err != nil {
		return err
	}
	if len(page.Items) != 1 || page.Items[0].DocID != j.DocID {
		return fmt.Errorf("the list does not show the job first: %+v", page.Items)
	}
	return nil
}
