package domain

import "testing"

func TestZoneNameSyntax(t *testing.T) {
	for _, ok := range []string{"Asia/Yerevan", "UTC", "America/Argentina/ComodRivadavia", "Etc/GMT+4", "Etc/GMT-14", "America/Port-au-Prince"} {
		if !ZoneNameSyntax(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "./Asia/Yerevan", "././Asia/Yerevan", "Asia/./Yerevan", "Asia/../Asia/Yerevan", "/Asia/Yerevan",
		"Asia//Yerevan", "Asia/Yerevan/", "Asia/Yerevan\x00", "Asia/Yerevan ", "1Asia/Yerevan", "Asia\\Yerevan", "Asia/Երևան"} {
		if ZoneNameSyntax(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}
