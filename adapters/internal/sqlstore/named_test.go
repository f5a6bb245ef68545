package sqlstore

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
)

// namedRow is a row struct bound by name in TestDriversTakeOneNamedStatement.
type namedRow struct {
	ID    string `db:"id"`
	N     int64  `db:"n"`
	Blob  []byte `db:"payload"`
	Other string `db:"unused"` // bound but not named by the statement
}

// The evidence for docs/decisions.md ("Named parameters"): one statement
// text with @name parameters, a name used twice and a row struct bound by
// its db tags runs unchanged on both drivers in go.mod, pgx (NamedArgs,
// StructArgs) and modernc.org/sqlite (sql.Named).
func TestDriversTakeOneNamedStatement(t *testing.T) {
	const (
		create = `CREATE TABLE named_t (id TEXT PRIMARY KEY, n BIGINT NOT NULL, payload BYTEA)`
		insert = `INSERT INTO named_t (id, n, payload) SELECT @id, @n, @payload
			WHERE NOT EXISTS (SELECT 1 FROM named_t WHERE id = @id)`
		read = `SELECT n FROM named_t WHERE id = @id AND n >= @n`
	)
	row := namedRow{ID: "a", N: 7, Blob: []byte("p"), Other: "x"}

	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(`CREATE TABLE named_t (id TEXT PRIMARY KEY, n INTEGER NOT NULL, payload BLOB)`); err != nil {
			t.Fatal(err)
		}
		cols, vals := Columns[namedRow](), Values(&row)
		args := make([]any, len(cols))
		for i, c := range cols {
			args[i] = sql.Named(c, vals[i])
		}
		for range 2 { // the second finds the row: @id is bound in both places
			if _, err := db.Exec(insert, args...); err != nil {
				t.Fatal(err)
			}
		}
		var n int64
		if err := db.QueryRow(read, sql.Named("id", "a"), sql.Named("n", int64(7))).Scan(&n); err != nil || n != 7 {
			t.Fatalf("read %d, %v", n, err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		conn, err := pgx.Connect(t.Context(), pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(t.Context())
		if _, err := conn.Exec(t.Context(), create); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := conn.Exec(t.Context(), insert, pgx.StructArgs(&row)); err != nil {
				t.Fatal(err)
			}
		}
		b := &pgx.Batch{} // and in a batch, as the stores queue them
		b.Queue(read, pgx.NamedArgs{"id": "a", "n": int64(7)})
		var n int64
		if err := conn.SendBatch(t.Context(), b).QueryRow().Scan(&n); err != nil || n != 7 {
			t.Fatalf("read %d, %v", n, err)
		}
	})
}

// What a named job update would cost pgx on each call: NamedArgs lexes the
// statement and rewrites it to $n (docs/decisions.md, "Named parameters").
func BenchmarkNamedJobUpdateRewrite(b *testing.B) {
	cols := JobWriteCols
	set := make([]string, 0, len(cols)-1)
	args := pgx.NamedArgs{}
	for _, c := range cols {
		args[c] = c
	}
	for _, c := range cols[1:] {
		set = append(set, c+" = @"+c)
	}
	query := "UPDATE jobs SET " + strings.Join(set, ", ") + " WHERE id = @id"
	for b.Loop() {
		if _, _, err := args.RewriteQuery(b.Context(), nil, query, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// A nil []byte is NULL for modernc.org/sqlite (and pgx), and an empty one
// is not: deliveryRow's payload relies on it.
func TestSQLiteBindsNilBytesAsNull(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		v    []byte
		null bool
	}{{nil, true}, {[]byte{}, false}} {
		var isNull bool
		if err := db.QueryRow(`SELECT ? IS NULL`, c.v).Scan(&isNull); err != nil || isNull != c.null {
			t.Errorf("%#v: IS NULL = %v, %v; want %v", c.v, isNull, err, c.null)
		}
	}
}
