package app

import (
	"context"
	"time"
)

// storeTimeoutKey carries the bound of each piece of store work in a
// request whose whole may last much longer than that work (an upload,
// whose body streams for up to an hour).
type storeTimeoutKey struct{}

// WithStoreTimeout marks ctx so that each piece of store work a use case
// does under it (storeWork) lasts at most d, while ctx itself may live on:
// a silent database then fails an upload's bookkeeping within d instead of
// holding the uploader for the body's whole allowance.
func WithStoreTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, storeTimeoutKey{}, d)
}

// storeWork is ctx bounded by its WithStoreTimeout, if it has one.
func storeWork(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Value(storeTimeoutKey{}).(time.Duration); ok && d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return ctx, func() {}
}
