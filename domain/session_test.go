package domain

import (
	"testing"
	"time"
)

func TestSessionExtendWritesRarelyAndStopsAtTheLifetime(t *testing.T) {
	s := Session{CreatedAt: t0, ExpiresAt: NewSessionEnd(t0)}
	if s.Extend(t0.Add(SessionRefresh / 2)) {
		t.Error("a use within SessionRefresh of the last extension asks for a write")
	}
	if !s.Extend(t0.Add(time.Hour)) || !s.ExpiresAt.Equal(t0.Add(time.Hour+SessionIdle)) {
		t.Errorf("a use an hour later: ends %s, want %s", s.ExpiresAt, t0.Add(time.Hour+SessionIdle))
	}
	s.Extend(t0.Add(SessionLifetime - time.Hour))
	if !s.ExpiresAt.Equal(t0.Add(SessionLifetime)) {
		t.Errorf("near the lifetime: ends %s, want %s", s.ExpiresAt, t0.Add(SessionLifetime))
	}
}
