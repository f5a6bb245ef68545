package sqlstore

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

func TestDialects(t *testing.T) {
	cols := []string{"id", "name", "plan"}
	for _, c := range []struct {
		d              Dialect
		insert, update string
	}{
		{SQLite, "INSERT INTO t (id, name, plan) VALUES (?, ?, ?)", "UPDATE t SET name = ?, plan = ? WHERE id = ?"},
		{Postgres, "INSERT INTO t (id, name, plan) VALUES ($1, $2, $3)", "UPDATE t SET name = $1, plan = $2 WHERE id = $3"},
	} {
		if got := c.d.Insert("t", cols); got != c.insert {
			t.Errorf("insert: %q, want %q", got, c.insert)
		}
		if got := c.d.Update("t", cols); got != c.update {
			t.Errorf("update: %q, want %q", got, c.update)
		}
	}
	if got := KeyLast([]any{"k", 1, 2}); got[0] != 1 || got[2] != "k" {
		t.Errorf("KeyLast: %v", got)
	}
}

// Every row has a value per column, and every scan a destination.
func TestRowsMatchTheirColumns(t *testing.T) {
	var j JobScan
	var a AccountScan
	var k APIKeyScan
	for _, c := range []struct {
		name       string
		cols, vals int
	}{
		{"job scan", len(JobCols), len(j.Dest())},
		{"account", len(AccountCols), len(a.Dest())},
		{"api key", len(APIKeyCols), len(k.Dest())},
		{"tombstone", len(TombstoneCols), len(TombstoneRow(domain.Tombstone{}))},
	} {
		if c.cols != c.vals {
			t.Errorf("%s: %d columns, %d values", c.name, c.cols, c.vals)
		}
	}
}

// A job's columns are jobRow's, and a job written as a row (JobRow) and
// scanned back (JobScan) is the same job: every field has its column both
// ways.
func TestJobRowRoundTrip(t *testing.T) {
	want := []string{
		"id", "account_id", "type", "status", "metadata", "checklist_id", "created_at", "updated_at", "upload_expires_at",
		"blob_key", "audio_bytes", "audio", "reserved_ms", "transcription", "segments", "title", "resolution",
		"language_code", "error", "redrives", "checklist_version", "filename", "speakers",
	}
	if !reflect.DeepEqual(JobCols, want) {
		t.Fatalf("JobCols = %v, want %v", JobCols, want)
	}
	at := time.UnixMilli(1_700_000_000_123).UTC()
	j := domain.Job{
		ID: "doc-1", AccountID: "acct-1", Type: "transcription", Status: "done",
		Metadata: json.RawMessage(`{"a":1}`), ChecklistID: "cl", ChecklistVersion: 3,
		CreatedAt: at, UpdatedAt: at.Add(time.Second), UploadExpiresAt: at.Add(time.Hour),
		BlobKey: "blob", AudioBytes: 42, Audio: &domain.AudioInfo{}, ReservedMs: 7,
		Transcription: "text", Segments: []domain.Segment{{Text: "text"}}, Title: "title",
		Resolution: "res", LanguageCode: "hy", Error: "err", Redrives: 2, Filename: "a.mp3",
		Speakers: map[string]domain.SpeakerName{"A": {}},
	}
	vals, err := JobRow(j)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != len(JobWriteCols) {
		t.Fatalf("%d values for %d columns", len(vals), len(JobWriteCols))
	}
	var s JobScan
	for i, d := range s.Dest() {
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(vals[i]))
	}
	got, err := s.Job()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, j) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, j)
	}
}

// fill sets each scan destination to the value written in its place, as
// a database would read back what was written.
func fill(vals, dest []any) {
	if len(vals) != len(dest) {
		panic(fmt.Sprintf("%d values, %d destinations", len(vals), len(dest)))
	}
	for i, d := range dest {
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(vals[i]))
	}
}

// Accounts, users and keys written as rows and scanned back are the same.
func TestRowStructsRoundTrip(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_123).UTC()
	later := at.Add(time.Minute)
	a := domain.Account{ID: "acct-1", Name: "n", Plan: "pro", BalanceMs: 5, WebhookURL: "w", WebhookSecret: "s",
		AnalysisWebhookURL: "aw", NotifyFailures: true, CreatedAt: at, TimeZone: "Asia/Yerevan", AgentChannel: "left"}
	var as AccountScan
	fill(AccountRow(a), as.Dest())
	if got := as.Account(); !reflect.DeepEqual(got, a) {
		t.Errorf("account read back %+v, want %+v", got, a)
	}
	u := domain.User{ID: "u", AccountID: "acct-1", Email: "e", PasswordHash: "p", Role: "owner", InviteHash: "i",
		InviteExpiresAt: later, CreatedAt: at, Lang: "hy"}
	if got, err := ScanUser(written(UserRow(u))); err != nil || !reflect.DeepEqual(got, u) {
		t.Errorf("user read back %+v, %v; want %+v", got, err, u)
	}
	k := domain.APIKey{ID: "k", AccountID: "acct-1", Prefix: "hs_", Hash: "h", CreatedAt: at, LastUsedAt: &later, RevokedAt: &later}
	var ks APIKeyScan
	fill(APIKeyRow(k), ks.Dest())
	if got := ks.Key(); !reflect.DeepEqual(got, k) {
		t.Errorf("key read back %+v, want %+v", got, k)
	}
}

// written is a row read back as it was written.
type written []any

func (w written) Scan(dest ...any) error {
	fill(w, dest)
	return nil
}

// Analyses, checklists and tombstones written as rows and scanned back are
// the same.
func TestJSONRowStructsRoundTrip(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_123).UTC()
	an := domain.Analysis{ID: "an", DocID: "doc", AccountID: "acct", ChecklistID: "cl", ChecklistVersion: 2,
		ChecklistName: "name", Status: "ok", Error: "e", Results: map[string]domain.QuestionResult{"q": {}}, CreatedAt: at}
	vals, err := AnalysisRow(an)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ScanAnalysis(written(vals)); err != nil || !reflect.DeepEqual(got, an) {
		t.Errorf("analysis read back %+v, %v; want %+v", got, err, an)
	}
	cl := domain.Checklist{ID: "cl", AccountID: "acct", Name: "n", Version: 3, Questions: []domain.Question{{}}, Archived: true, CreatedAt: at}
	if vals, err = ChecklistRow(cl); err != nil {
		t.Fatal(err)
	}
	if got, err := ScanChecklist(written(vals)); err != nil || !reflect.DeepEqual(got, cl) {
		t.Errorf("checklist read back %+v, %v; want %+v", got, err, cl)
	}
	tb := domain.Tombstone{DocID: "doc", AccountID: "acct", Type: "transcription", Status: "done",
		CreatedAt: at, UpdatedAt: at.Add(time.Second), DeletedAt: at.Add(time.Hour), Reason: "r"}
	if got, err := ScanTombstone(written(TombstoneRow(tb))); err != nil || !reflect.DeepEqual(got, tb) {
		t.Errorf("tombstone read back %+v, %v; want %+v", got, err, tb)
	}
}
