// Package ctxtime holds the one context-aware wait that every retry loop of the project uses.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx is done, whichever comes first. It returns ctx.Err() when the
// context ended the wait and nil otherwise. Retry loops take it as their default sleep function
// so tests can inject one that does not wait.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
