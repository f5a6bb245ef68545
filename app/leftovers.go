package app

import "context"

// removeLeftovers runs the sweeper's leftover removal, when it has one
// (uploads kept on the local disk).
func (s *Sweeper) removeLeftovers(ctx context.Context) {
	if s.Leftovers == nil {
		return
	}
	n, err := s.Leftovers.RemoveLeftovers(ctx, s.clock.Now().Add(-s.LeftoverAge))
	if err != nil && ctx.Err() == nil {
		s.log.Warn("sweeper: remove leftovers", "err", err)
	}
	if n > 0 {
		s.log.Info("sweeper: removed files left by a crash", "files", n)
	}
}
