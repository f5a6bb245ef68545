package clickhouse_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/hyscribe/hyscribe/adapters/clickhouse"
	"github.com/hyscribe/hyscribe/domain"
)

// A sink whose DSN names a database that does not exist creates it (the
// name quoted: a '-' is not an identifier character), migrates it and
// stores the batch; a sink on a server that does not answer fails the
// write (the batch consumer retries it) instead of failing at construction.
func TestSinkCreatesItsDatabase(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := ch.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var b [6]byte
	rand.Read(b[:])
	db := "hyscribe-sink-" + hex.EncodeToString(b[:])
	t.Cleanup(func() { admin.Exec(context.Background(), "DROP DATABASE IF EXISTS `"+db+"`") })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db

	down := *u
	down.Host = "127.0.0.1:1"
	if err := clickhouse.NewSink(down.String()).Write(ctx, []domain.Event{analysisEvent("d0", "acc", "cl", t0, domain.AnswerYes)}); err == nil {
		t.Fatal("a write to a server that does not answer succeeded")
	}

	sink := clickhouse.NewSink(u.String())
	defer sink.Close()
	if err := sink.Write(ctx, []domain.Event{analysisEvent("d1", "acc", "cl", t0, domain.AnswerYes, domain.AnswerNo)}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, admin, "SELECT count() FROM `"+db+"`.checklist_results WHERE doc_id = 'd1'"); n != 2 {
		t.Fatalf("%d result rows in the created database, want 2", n)
	}
}
