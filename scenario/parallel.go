package scenario

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// ParallelOptions are the choices of RunParallel.
type ParallelOptions struct {
	// Workers is the number of runs at a time; 0: runtime.GOMAXPROCS(0)
	// (every core the process may use), 1: one after another.
	Workers int
	// Options are passed to every run, except that Progress, if set, is
	// replaced by a call of OnProgress with the run's index.
	Options Options
	// OnProgress, if set, receives each run's progress with the run's
	// index in the configs given. Calls are serialized (never two at a
	// time), so it needs no locking of its own.
	OnProgress func(i int, p Progress)
}

// RunParallel runs independent scenarios (sweep points, several
// congestion controls, several scenarios) at up to Workers at a time and
// returns their results in the order given. Every run owns all of its
// state (NICs, network, engine, random generators seeded from its Config),
// so a result is byte-identical to the result of Run on the same Config
// alone, whatever the interleaving (TestRunParallelMatchesSequential);
// only RunStats' wall-clock figures differ. Every Config is validated
// before any run starts, and an invalid one is reported (the lowest
// index) without running anything. A run that fails later cancels the
// others; the error returned is the lowest-indexed failure that is not
// the cancellation itself, wrapped with the run's index and name.
func RunParallel(ctx context.Context, cfgs []Config, o ParallelOptions) ([]*Result, error) {
	w := o.Workers
	if w < 0 {
		return nil, fmt.Errorf("scenario: workers=%d: must be >= 0", w)
	}
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	for i := range cfgs {
		if err := cfgs[i].Validate(); err != nil {
			return nil, fmt.Errorf("scenario: run %d (%s): %w", i, cfgs[i].Name, err)
		}
	}
	w = min(w, len(cfgs))
	res := make([]*Result, len(cfgs))
	errs := make([]error, len(cfgs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex // serializes OnProgress
	next := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				opts := o.Options
				opts.Progress = nil
				if f := o.OnProgress; f != nil {
					opts.Progress = func(p Progress) {
						mu.Lock()
						defer mu.Unlock()
						f(i, p)
					}
				}
				r, err := Run(ctx, cfgs[i], opts)
				if err != nil {
					errs[i] = fmt.Errorf("scenario: run %d (%s): %w", i, cfgs[i].Name, err)
					cancel()
					continue
				}
				res[i] = r
			}
		}()
	}
feed:
	for i := range cfgs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, ErrInterrupted) {
			return nil, err
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		// Cancelled from outside before every run was started.
		for i, r := range res {
			if r == nil {
				return nil, fmt.Errorf("%w before run %d (%s) started: %v", ErrInterrupted, i, cfgs[i].Name, err)
			}
		}
	}
	return res, nil
}
