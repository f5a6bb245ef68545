package kafka

import (
	"context"
	"fmt"
)

// Ping reports whether a broker answers (readiness).
func (p *Publisher) Ping(ctx context.Context) error {
	if err := p.cl.Ping(ctx); err != nil {
		return fmt.Errorf("kafka.Ping: %w", err)
	}
	return nil
}
