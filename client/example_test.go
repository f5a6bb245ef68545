package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hyscribe/hyscribe/client"
)

func ExampleClient_Transcribe() {
	c := client.New("https://hyscribe.example", os.Getenv("HYSCRIBE_API_KEY"))
	job, err := c.Transcribe(context.Background(), "call.mp3", client.TranscribeOptions{
		Type: client.PhoneCall, Metadata: []byte(`{"crmId":"A-1042"}`),
	})
	var failed *client.JobFailedError
	if errors.As(err, &failed) {
		log.Printf("job %s failed: %s", failed.DocID, failed.Message)
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*job.Transcription)
}

func ExampleClient_ListAll() {
	c := client.New("https://hyscribe.example", os.Getenv("HYSCRIBE_API_KEY"))
	ctx := context.Background()
	downSince := time.Now().Add(-2 * time.Hour)
	err := c.ListAll(ctx, client.ListOptions{Status: client.StatusTranscribed, CreatedSince: downSince},
		func(j client.JobSummary) error {
			_, err := c.Resend(ctx, j.DocID, client.EventTranscriptReady)
			return err
		})
	if err != nil {
		log.Fatal(err)
	}
}
