package httpapi

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// /readyz follows the process's dependencies; /healthz (liveness) does not,
// so a database outage takes a process out of rotation without restarts.
func TestReadyzReflectsTheDependencies(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	e := newEnv(t, func(o *options) {
		o.readiness = func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); !ok {
				return errors.New("checks must be bounded")
			}
			if down.Load() {
				return errors.New("store: connection refused")
			}
			return nil
		}
	})
	if r := e.do("GET", "/readyz", nil, nil); r.status != 200 || string(r.body) != `{"status":"ok"}` {
		t.Fatalf("ready: %d %s", r.status, r.body)
	}
	down.Store(true)
	msg := e.do("GET", "/readyz", nil, nil).wantError(t, 503, "not_ready")
	if !strings.Contains(msg, "store: connection refused") {
		t.Errorf("503 says %q, want the reason", msg)
	}
	if r := e.do("GET", "/healthz", nil, nil); r.status != 200 {
		t.Errorf("liveness follows the store: %d", r.status)
	}
	down.Store(false)
	e.ready.Store(false) // stopping
	e.do("GET", "/readyz", nil, nil).wantError(t, 503, "not_ready")
}
