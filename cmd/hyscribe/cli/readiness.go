package cli

import (
	"context"
	"encoding/json"
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
	if free, ok := freeSpace(s.cfg.DataDir); ok && free < minFreeSpace {
		s.log.Warn("readiness: the data dir is out of space", "dir", s.cfg.DataDir, "freeBytes", free)
		return errors.New("out of storage space")
	}
	return nil
}

// minFreeSpace is the least free space in HYSCRIBE_DATA_DIR (the SQLite
// file, local uploads, the decoder's scratch audio, the embedded Kafka) of
// a ready process: with less, writes are about to fail with "no space
// left" (answered 503 storage_full; stages wait), so the orchestrator is
// told to send the traffic elsewhere until space is freed.
const minFreeSpace = 16 << 20

// serveReadyz is /readyz on a worker's health address and on the admin
// listener, in the shape of the API's own /readyz (adapters/httpapi): 200
// {"status":"ok"}, or 503 {"error":"not ready: <reason>","code":"not_ready"}.
func (s *Service) serveReadyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyzTimeout)
	defer cancel()
	if err := s.readiness(ctx); err != nil {
		writeReadyz(w, "not ready: "+err.Error())
		return
	}
	writeReadyz(w, "")
}

// writeReadyz writes the probes' answer: ok when reason is "", else 503
// with reason, in the API's error shape.
func writeReadyz(w http.ResponseWriter, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if reason != "" {
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": reason, "code": "not_ready"})
		return
	}
	_, _ = w.Write([]byte(`{"status":"ok"}`))
}
