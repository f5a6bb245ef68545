package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// sqliteResults are the poll figures of the embedded default: one
// `hyscribe serve` on its SQLite file, beside bare fiber run just after.
type sqliteResults struct {
	Keys                int
	Poll, Limited, Bare wrkResult
}

// pollSQLite runs `hyscribe serve` on a data dir of its own, provisions an
// account with o.sqliteKeys keys straight into its SQLite file, and
// measures the poll (many keys, then one key) and bare fiber under wrk.
func pollSQLite(o options, work string) (sqliteResults, error) {
	r := sqliteResults{Keys: o.sqliteKeys}
	dir := filepath.Join(work, "serve")
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":            dir,
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_UPLOAD_SECRET":       "bench-upload-secret",
		"HYSCRIBE_SHUTDOWN_GRACE":      "2s",
		"HYSCRIBE_LOG_LEVEL":           "info",
	}
	srv, err := startProc(work, "serve", vars, o.bin, "serve")
	if err != nil {
		return r, err
	}
	defer srv.stop()
	line, err := srv.waitLog("http listening", 60*time.Second)
	if err != nil {
		return r, err
	}
	addr := line["addr"].(string)
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "hyscribe.db"))
	if err != nil {
		return r, err
	}
	acct, first, err := app.NewCreateAccount(store, ports.SystemClock{}).Handle(ctx, "bench", domain.PlanBusiness, 1e9)
	if err != nil {
		store.Close()
		return r, err
	}
	keys := []string{first}
	for len(keys) < o.sqliteKeys {
		k, _, err := app.NewCreateAPIKey(store, ports.SystemClock{}).Handle(ctx, acct.ID, domain.RoleOwner)
		if err != nil {
			store.Close()
			return r, err
		}
		keys = append(keys, k)
	}
	store.Close()
	keysFile := filepath.Join(work, "sqlite-keys")
	if err := os.WriteFile(keysFile, []byte(strings.Join(keys, "\n")+"\n"), 0o600); err != nil {
		return r, err
	}
	oneKey := filepath.Join(work, "sqlite-one-key")
	if err := os.WriteFile(oneKey, []byte(keys[0]+"\n"), 0o600); err != nil {
		return r, err
	}
	client := &http.Client{Timeout: 30 * time.Second}
	docID, _, err := createJob(client, addr, keys[len(keys)-1])
	if err != nil {
		return r, err
	}
	path := "/api/getTranscription?docId=" + docID
	fmt.Fprintf(os.Stderr, "bench: poll on SQLite (serve) under wrk, %d keys, %s\n", o.sqliteKeys, o.dur)
	if r.Poll, err = runWrk(o, addr, path, keysFile); err != nil {
		return r, err
	}
	if r.Limited, err = runWrk(o, addr, path, oneKey); err != nil {
		return r, err
	}
	srv.stop()
	r.Bare, err = runBare(o, work, "barefiber-sqlite", path, keysFile)
	return r, err
}

// runBare starts bench/barefiber and measures it under wrk as the poll was.
func runBare(o options, work, name, path, keysFile string) (wrkResult, error) {
	bare, err := startProc(work, name, nil, o.bare)
	if err != nil {
		return wrkResult{}, err
	}
	defer bare.stop()
	line, err := bare.waitLine(func(m map[string]any) bool { return m["addr"] != nil }, 30*time.Second)
	if err != nil {
		return wrkResult{}, err
	}
	return runWrk(o, line["addr"].(string), path, keysFile)
}
