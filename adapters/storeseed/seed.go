// Package storeseed fills a store with a large, made-up history of jobs
// quickly, for the store-growth benchmark (bench/growth, `make bench`): N
// jobs spread over a number of Business accounts, each with API keys, in the
// real schema of either store (the schema comes from the store's own Open,
// which migrates), written in bulk (COPY on Postgres, multi-row INSERTs in
// one transaction on SQLite) rather than through the API, which would take
// hours at a million jobs.
//
// Everything is derived from the job's or account's number, so a benchmark
// that reuses a seeded database knows every key, job ID and creation time
// without reading them back: Key, JobID, JobAccount, JobCreated.
package storeseed

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// Spec is what to seed.
type Spec struct {
	Jobs           int // jobs in all
	Accounts       int // Business accounts, jobs dealt round-robin; 1,000 by default
	KeysPerAccount int // API keys of each account; 10 by default
}

func (s Spec) norm() Spec {
	if s.Accounts <= 0 {
		s.Accounts = 1000
	}
	if s.KeysPerAccount <= 0 {
		s.KeysPerAccount = 10
	}
	return s
}

// Epoch is the creation time of job 0; job n is created n×JobStep later,
// so a million jobs span about a year and a half and the newest is in the
// past.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// JobStep is the time between two consecutive jobs' creation.
const JobStep = 47 * time.Second

// AccountID is account a's ID.
func AccountID(a int) domain.AccountID { return domain.AccountID(fmt.Sprintf("growth-acct-%04d", a)) }

// KeyID is the ID of account a's key k.
func KeyID(a, k int) string { return fmt.Sprintf("growth-key-%04d-%02d", a, k) }

// Key is account a's key k: the raw key a client sends and what is stored.
func Key(a, k int) (raw string, key domain.APIKey) {
	random := sha512.Sum512([]byte("growth key " + strconv.Itoa(a) + " " + strconv.Itoa(k)))
	return domain.NewAPIKey(KeyID(a, k), AccountID(a), random[:], Epoch)
}

// JobID is job n's ID: 128 bits that look random, like app.NewID's.
func JobID(n int) domain.DocID {
	sum := sha256.Sum256([]byte("growth job " + strconv.Itoa(n)))
	return domain.DocID(base64.RawURLEncoding.EncodeToString(sum[:16]))
}

// JobAccount is the account of job n among accounts.
func JobAccount(n, accounts int) int { return n % accounts }

// JobCreated is job n's creation time.
func JobCreated(n int) time.Time { return Epoch.Add(time.Duration(n) * JobStep) }

// words make up the transcripts: Armenian and English, as customers'.
var words = strings.Fields(`բարև ձեզ զանգում եմ պատվերի մասին խնդրում եմ ստուգել հաշիվը
	վճարումը առաքումը երեկ այսօր վաղը շնորհակալություն հաճախորդ ծառայություն
	hello thank you for calling order delivery invoice refund account balance
	tomorrow yesterday please check the status number address phone manager`)

// Job is job n as seeded among accounts: nine in ten transcribed (with a
// transcript, segments and audio details), one in ten failed; three in ten
// phone calls.
func Job(n, accounts int) domain.Job {
	created := JobCreated(n)
	j := domain.Job{
		ID: JobID(n), AccountID: AccountID(JobAccount(n, accounts)), Type: domain.TypeSingleVoice,
		Metadata:  json.RawMessage(`{"ref":"` + strconv.Itoa(n) + `"}`),
		CreatedAt: created, UpdatedAt: created.Add(20 * time.Second), UploadExpiresAt: created.Add(domain.UploadWindow),
		BlobKey: "growth/" + string(JobID(n)) + ".mp3", AudioBytes: 240_000, ReservedMs: 60_000,
	}
	if n%10 < 3 {
		j.Type = domain.TypePhoneCall
	}
	if n%10 == 9 {
		j.Status, j.Error = domain.StatusFailed, "The recording could not be read as MP3."
		return j
	}
	j.Status = domain.StatusTranscribed
	j.Audio = &domain.AudioInfo{Format: "mp3", Duration: 60, Channels: 1, SampleRate: 16000, Bitrate: 32000, Frames: 2297}
	var text strings.Builder
	x := uint64(n)*2654435761 + 1 //nolint:gosec // a job's number, never negative, seeds its words
	for s := 0; s < 4; s++ {
		var seg strings.Builder
		for w := 0; w < 10; w++ {
			x = x*6364136223846793005 + 1442695040888963407
			if w > 0 {
				seg.WriteByte(' ')
			}
			seg.WriteString(words[(x>>33)%uint64(len(words))])
		}
		j.Segments = append(j.Segments, domain.Segment{Start: float64(s * 15), End: float64(s*15 + 14), Text: seg.String()})
		if s > 0 {
			text.WriteByte(' ')
		}
		text.WriteString(seg.String())
	}
	j.Transcription = text.String()
	j.Title = strings.Join(strings.Fields(j.Transcription)[:3], " ")
	j.Resolution, j.LanguageCode = "resolved", "hy"
	return j
}

// historyRow is one job_history row: doc_id, event_id, topic, type, status,
// error, note, occurred_at.
var historyCols = []string{"doc_id", "event_id", "topic", "type", "status", "error", "note", "occurred_at"}

// history is job j's job_history: created, uploaded, and its end.
func history(j domain.Job) [][]any {
	id := string(j.ID)
	at := j.CreatedAt.UnixMilli()
	end, errMsg := "transcribed", ""
	if j.Status == domain.StatusFailed {
		end, errMsg = "failed", j.Error
	}
	return [][]any{
		{id, id + ":created", domain.TopicJobStatus, "job.status", "uploading", "", "", at},
		{id, id + ":uploaded", domain.TopicAudioUploaded, "audio.uploaded", "", "", "", at + 5_000},
		{id, id + ":" + end, domain.TopicJobStatus, "job.status", end, errMsg, "", at + 20_000},
	}
}

// accountCols and account are an account's row, in the order of both
// stores' accounts table columns named here.
var accountCols = []string{"id", "name", "plan", "balance_ms", "webhook_url", "webhook_secret", "created_at"}

func account(a int) []any {
	return []any{string(AccountID(a)), "Growth " + strconv.Itoa(a), string(domain.PlanBusiness), int64(1_000_000_000_000), "", "", Epoch.UnixMilli()}
}

var keyCols = []string{"id", "account_id", "prefix", "hash", "created_at"}

func keyRow(a, k int) []any {
	_, key := Key(a, k)
	return []any{key.ID, string(key.AccountID), key.Prefix, key.Hash, Epoch.UnixMilli()}
}
