package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
)

// createStoreFlag adds --create-store to a provisioning command's flags.
func createStoreFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("create-store", false, "make a new, empty SQLite store if HYSCRIBE_DATA_DIR has none")
}

// openProvisioningStore opens the store a provisioning command works on
// and says on stderr which one, so that an operator sees at once when it
// is not the running service's. A SQLite store that does not exist yet is
// made only when asked (--create-store): otherwise a command run from
// the wrong directory would quietly make a new ./data/hyscribe.db, whose
// accounts and keys the running service never sees.
func openProvisioningStore(ctx context.Context, cfg Config, stderr io.Writer, create bool) (storeCloser, error) {
	if cfg.DatabaseURL != "" {
		fmt.Fprintf(stderr, "hyscribe: using the Postgres store %s (DATABASE_URL)\n", redactedDSN(cfg.DatabaseURL))
		st, _, err := openStore(ctx, cfg)
		return st, err
	}
	path := filepath.Join(cfg.DataDir, "hyscribe.db")
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	_, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !create:
		return nil, fmt.Errorf("no store at %s (HYSCRIBE_DATA_DIR=%s): run the command where `hyscribe serve` runs, with its "+
			"HYSCRIBE_DATA_DIR or DATABASE_URL, or add --create-store to make a new, empty store there", path, cfg.DataDir)
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "hyscribe: creating a new SQLite store %s\n", path)
	case err != nil:
		return nil, fmt.Errorf("store %s: %w", path, err)
	default:
		fmt.Fprintf(stderr, "hyscribe: using the SQLite store %s\n", path)
	}
	st, _, err := openStore(ctx, cfg)
	return st, err
}

// redactedDSN is a database URL without its password.
func redactedDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable DATABASE_URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	u.RawQuery = ""
	return u.String()
}
