package cli

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// readyzTimeout bounds the checks of one readiness probe.
const readyzTimeout = 800 * time.Millisecond

// readiness is what GET /readyz answers: whether the process can work now.
// Its store and Kafka must answer; the reason returned names which does not
// (the log has the driver's error, which may name hosts and users).
func (s *Service) readiness(ctx context.Context) error {
	if !s.isReady() || s.stopping.Load() {
		return errors.New("starting or stopping")
	}
	if p, ok := s.store.(interface{ Ping(context.Context) error }); ok {
		if err := p.Ping(ctx); err != nil {
			s.log.Warn("readiness: the store does not answer", "err", err)
			return errors.New("the store does not answer")
		}
	}
	if err := s.pub.Ping(ctx); err != nil {
		s.log.Warn("readiness: Kafka does not answer", "err", err)
		return errors.New("kafka does not answer")
	}
	return nil
}

// serveReadyz is /readyz on a worker's health address.
func (s *Service) serveReadyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	ctx, cancel := context.WithTimeout(r.Context(), readyzTimeout)
	defer cancel()
	if err := s.readiness(ctx); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"not_ready"}`))
		return
	}
	_, _ = w.Write([]byte(`{"status":"ok"}`))
}
