package cli

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hyscribe/hyscribe/adapters/metrics"
)

// serveHealth gives a process without the API what orchestrators probe:
// GET /healthz (200 once ready, 503 before and while stopping) and GET
// /metrics, on HYSCRIBE_HEALTH_ADDR.
func (s *Service) serveHealth(reg *metrics.Registry) error {
	ln, err := net.Listen("tcp", s.cfg.HealthAddr)
	if err != nil {
		return fmt.Errorf("HYSCRIBE_HEALTH_ADDR %s: %w", s.cfg.HealthAddr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.serveHealthz)
	mux.HandleFunc("GET /readyz", s.serveReadyz)
	mux.HandleFunc("GET /metrics", serveMetrics(reg))
	s.healthAt = ln.Addr().String()
	s.health = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.health.Serve(ln) }()
	s.log.Info("health listening", "addr", ln.Addr().String())
	return nil
}

func (s *Service) isReady() bool {
	select {
	case <-s.ready:
		return true
	default:
		return false
	}
}
