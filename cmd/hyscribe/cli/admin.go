package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hyscribe/hyscribe/adapters/metrics"
)

// serveAdmin is the operators' listener on HYSCRIBE_ADMIN_ADDR, for any
// role: /metrics (then off the public port), Go's /debug/pprof/, /healthz,
// /readyz (the probes' shape) and /readyz/details, which names each
// dependency and, unlike the public answer, the driver's error. It belongs
// on loopback or a network only operators and Prometheus reach
// (docs/operations.md).
func (s *Service) serveAdmin(reg *metrics.Registry) error {
	ln, err := net.Listen("tcp", s.cfg.AdminAddr)
	if err != nil {
		return fmt.Errorf("HYSCRIBE_ADMIN_ADDR %s: %w", s.cfg.AdminAddr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", serveMetrics(reg))
	mux.HandleFunc("GET /healthz", s.serveHealthz)
	mux.HandleFunc("GET /readyz", s.serveReadyz)
	mux.HandleFunc("GET /readyz/details", s.serveReadyDetails)
	handlePprof(mux)
	s.adminAt = ln.Addr().String()
	s.admin = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.admin.Serve(ln) }()
	s.log.Info("admin listening", "addr", s.adminAt, "serves", "/metrics /debug/pprof/ /healthz /readyz /readyz/details")
	return nil
}

// serveHealthz is the liveness probe off the API's port, in its shape.
func (s *Service) serveHealthz(w http.ResponseWriter, _ *http.Request) {
	if !s.isReady() || s.stopping.Load() {
		writeReadyz(w, "the service is starting or stopping and cannot serve yet")
		return
	}
	writeReadyz(w, "")
}

func serveMetrics(reg *metrics.Registry) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", metrics.ContentType)
		_ = reg.WriteText(w)
	}
}

// serveReadyDetails answers each check by name with its full error, for an
// operator asking why a process is out of rotation.
func (s *Service) serveReadyDetails(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyzTimeout)
	defer cancel()
	checks := map[string]string{"process": "ok", "store": "ok", "kafka": "ok"}
	ready := true
	if !s.isReady() || s.stopping.Load() {
		checks["process"], ready = "starting or stopping", false
	}
	if p, ok := s.store.(interface{ Ping(context.Context) error }); ok {
		if err := p.Ping(ctx); err != nil {
			checks["store"], ready = err.Error(), false
		}
	}
	if s.pub != nil {
		if err := s.pub.Ping(ctx); err != nil {
			checks["kafka"], ready = err.Error(), false
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	status := "ok"
	if !ready {
		status = "not_ready"
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"status": status, "checks": checks, "brokers": s.brokers, "build": ReadBuildInfo()})
}
