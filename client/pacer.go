package client

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"
)

// Scopes of the service's per-key limits: each counts apart.
const (
	scopePoll   = "poll"
	scopeExport = "export"
	scopeList   = "list"
	scopeResend = "resend"
)

// pacer spaces the requests of one API key and scope: each takes the next
// free slot, gap after the one before. Gaps of a minute divided by 95 % of
// the limit keep any minute's requests under the limit however the
// service's wall-clock minutes fall, with a margin for the network
// bringing two requests closer together than they were sent.
type pacer struct {
	mu   sync.Mutex
	next time.Time
	gap  time.Duration
}

// pacers holds one pacer per service, key, scope and limit, shared by
// every Client of the process.
var pacers sync.Map // pacerKey → *pacer

type pacerKey struct {
	base, apiKey, scope string
	perMinute           int
}

func (c *Client) pacer(scope string) *pacer {
	k := pacerKey{c.baseURL, c.apiKey, scope, c.perMinute}
	if p, ok := pacers.Load(k); ok {
		return p.(*pacer)
	}
	p, _ := pacers.LoadOrStore(k, &pacer{gap: gapFor(c.perMinute)})
	return p.(*pacer)
}

func gapFor(perMinute int) time.Duration {
	return time.Minute * 20 / time.Duration(perMinute*19)
}

// reserve takes the next slot at or after now and returns when it is.
func (p *pacer) reserve(now time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.gap)
	return at
}

// hold keeps every slot before until free: the service said to wait.
func (p *pacer) hold(until time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next.Before(until) {
		p.next = until
	}
}

// paced runs call in the next slot of the key's pacer for scope; a 429
// holds that pacer for its Retry-After.
func (c *Client) paced(ctx context.Context, scope string, call func() error) error {
	p := c.pacer(scope)
	if err := c.pace(ctx, time.Until(p.reserve(time.Now()))); err != nil {
		return err
	}
	err := call()
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusTooManyRequests {
		p.hold(time.Now().Add(max(apiErr.RetryAfter, time.Second)))
	}
	return err
}
