package feedback

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// SyncLoop runs a store's outbox rounds in the background: one round at
// start (records left pending by an earlier run), after every Kick, and
// every interval (to retry a sink or database that was down), until Stop.
// Submissions only commit and kick it, so a slow sink delays the mirror,
// never a submission; rounds never overlap. Both the bbolt and the
// PostgreSQL stores use it.
type SyncLoop struct {
	// kick has capacity 1: Kick never blocks, and kicks arriving during a
	// round fold into one more round, which sees every record committed
	// before it started.
	kick chan struct{}
	stop context.CancelFunc
	done sync.WaitGroup
}

// StartSyncLoop starts round in the background; every <= 0 takes
// DefaultSyncInterval. A failed round is logged and retried later.
func StartSyncLoop(round func(context.Context) error, every time.Duration, log *zap.Logger) *SyncLoop {
	if every <= 0 {
		every = DefaultSyncInterval
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &SyncLoop{kick: make(chan struct{}, 1), stop: cancel}
	l.done.Go(func() { l.run(ctx, round, every, log) })
	return l
}

func (l *SyncLoop) run(ctx context.Context, round func(context.Context) error, every time.Duration, log *zap.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := round(ctx); err != nil && ctx.Err() == nil {
			log.Warn("feedback sink sync failed; kept pending for retry", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return
		case <-l.kick:
		case <-t.C:
		}
	}
}

// Kick wakes the loop without waiting. A nil loop (no sink) ignores it.
func (l *SyncLoop) Kick() {
	if l == nil {
		return
	}
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Stop ends the loop and waits for a round under way (a sink call already
// made is finished and stored first). A nil loop ignores it.
func (l *SyncLoop) Stop() {
	if l == nil {
		return
	}
	l.stop()
	l.done.Wait()
}
