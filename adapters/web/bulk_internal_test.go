package web

import (
	"reflect"
	"testing"
)

func TestGuardCell(t *testing.T) {
	in := []string{"=1+2", "+A1", "-3", "@SUM(A1)", "\tx", "\rx", "ok", "", "a=b", "Պատվեր"}
	want := []string{"'=1+2", "'+A1", "'-3", "'@SUM(A1)", "'\tx", "'\rx", "ok", "", "a=b", "Պատվեր"}
	var got []string
	for _, s := range in {
		got = append(got, guardCell(s))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("guardCell = %q, want %q", got, want)
	}
}

func TestUniqueName(t *testing.T) {
	used := map[string]int{}
	var got []string
	for _, n := range []string{"a.srt", "a.srt", "b.srt", "a.srt", "a (2).srt"} {
		got = append(got, uniqueName(used, n))
	}
	want := []string{"a.srt", "a (2).srt", "b.srt", "a (3).srt", "a (2) (2).srt"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("uniqueName = %q, want %q", got, want)
	}
}
