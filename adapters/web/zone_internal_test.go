package web

import (
	"runtime"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
)

// TestZoneSpellingsAreRefused: the spellings of a zone that
// time.LoadLocation takes as paths are no zone of an account, so none of
// them gets pages of its own.
func TestZoneSpellingsAreRefused(t *testing.T) {
	if _, err := app.LoadZone("Asia/Yerevan"); err != nil {
		t.Fatalf("Asia/Yerevan: %v", err)
	}
	for _, name := range []string{"./Asia/Yerevan", "././Asia/Yerevan", "Asia/./Yerevan", "Asia/../Asia/Yerevan", "Asia//Yerevan", "/usr/share/zoneinfo/Asia/Yerevan", "Local", ""} {
		if loc, err := app.LoadZone(name); err == nil {
			t.Errorf("LoadZone(%q) = %v, want refused", name, loc)
		}
	}
}

// TestZonePagesAreBounded shows pages in more zones than are kept: the
// kept pages stay at maxZonePages, and the heap after them does not grow
// with the number of zones shown.
func TestZonePagesAreBounded(t *testing.T) {
	w := &Web{cfg: Config{Location: time.UTC}}
	zones := []string{"Asia/Yerevan", "Asia/Tbilisi", "Asia/Baku", "Europe/Moscow", "Asia/Dubai", "Europe/Istanbul", "Europe/Kyiv",
		"Europe/Berlin", "Europe/Paris", "Europe/London", "America/New_York", "America/Chicago", "America/Los_Angeles",
		"Asia/Tehran", "Asia/Almaty", "Australia/Sydney", "Asia/Tokyo", "Asia/Seoul", "Europe/Rome", "Europe/Madrid",
		"Africa/Cairo", "America/Sao_Paulo", "Asia/Kolkata", "Asia/Shanghai", "Pacific/Auckland", "America/Denver",
		"Europe/Warsaw", "Europe/Vienna", "Asia/Singapore", "Africa/Lagos", "America/Toronto", "Europe/Oslo"}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var afterBound uint64
	for i, z := range zones {
		loc, err := app.LoadZone(z)
		if err != nil {
			t.Fatal(err)
		}
		if w.pagesIn(loc) == nil {
			t.Fatalf("no pages in %s", z)
		}
		if n := len(w.zones.byZone); n > maxZonePages {
			t.Fatalf("%d zones' pages kept after %d zones, want at most %d", n, i+1, maxZonePages)
		}
		if i == maxZonePages-1 {
			afterBound = heap()
		}
	}
	if len(zones) < 2*maxZonePages {
		t.Fatalf("the test shows %d zones, want twice the bound", len(zones))
	}
	// Another 16 zones' pages would be ~37 MiB; allow a quarter of that.
	if grown := int64(heap()) - int64(afterBound); grown > 10<<20 {
		t.Fatalf("the heap grew by %d MiB over %d more zones", grown>>20, len(zones)-maxZonePages)
	}
}
