package migrations

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadOrdersByVersion(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0010_late.sql":   {Data: []byte("C")},
		"m/0002_second.sql": {Data: []byte("B")},
		"m/0001_first.sql":  {Data: []byte("A")},
		"m/README.md":       {Data: []byte("not a migration")},
	}
	ms, err := Load(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Name+"="+m.SQL)
	}
	if strings.Join(got, ",") != "0001_first.sql=A,0002_second.sql=B,0010_late.sql=C" || ms[2].Version != 10 {
		t.Fatalf("%v", got)
	}
}

func TestLoadRefusesWhatItCannotOrder(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"no number":      {"m/init.sql": {}},
		"zero":           {"m/0000_x.sql": {}},
		"shared version": {"m/0001_a.sql": {}, "m/1_b.sql": {}},
	} {
		if _, err := Load(fsys, "m"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestMarked(t *testing.T) {
	ms := []Migration{{Version: 1, SQL: "CREATE TABLE a (x int);"}, {Version: 2, SQL: "-- go: step\nSELECT 1;"}}
	if v := Marked(ms, "-- go: step"); v != 2 {
		t.Errorf("Marked = %d, want 2", v)
	}
	if v := Marked(ms, "-- go: other"); v != 0 {
		t.Errorf("Marked of an absent marker = %d, want 0", v)
	}
}
