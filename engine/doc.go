// Package engine holds simulation time and the cycle engine of the hpccgold NIC
// and network models.
//
// # Time
//
// Time is an integer clock-cycle count ([Cycle]). A [Freq] (clock frequency in
// Hz) does every conversion between cycles and picoseconds or nanoseconds,
// exactly, in 128-bit integer arithmetic (math/bits), with the rounding of
// each conversion stated (floor for "which cycle contains this instant",
// ceiling for "how many cycles cover this duration"). Results that do not fit
// 64 bits saturate at the maximum value; this is documented per method.
//
// # Components and the engine
//
// A [Component] owns its state and exposes Tick(now) bool, true when it made
// progress (changed any state, including pushing into or popping from a
// queue), and NextWake(now), the earliest future cycle at which its
// behaviour would change through the passage of time alone (a timer, a
// pacer's next token). The [Engine] ticks, in each cycle, only the components
// that have something to do: those that made progress in the previous cycle,
// those whose input FIFO received an element in the previous cycle (now
// visible), those whose output FIFO was full and was popped in the previous
// cycle (space freed), and those whose timer or timed-queue delivery falls in
// this cycle. When no component is due, the engine jumps straight to the
// earliest pending wake, so idle cycles cost nothing. Config.NoSkip ticks
// every component in every cycle instead; results are identical cycle for
// cycle (this is tested), and in that mode the engine counts components that
// report progress in a cycle in which skipping would not have ticked them
// (Stats.UnexpectedProgress), which is how a component that breaks the
// contract is found.
//
// Components are ticked in registration order (ascending [ID]) within a
// cycle. Because every queue has two-phase semantics, results do not depend
// on that order; it is fixed only so that side outputs (trace files) are
// deterministic.
//
// # Queues
//
// [FIFO] is a bounded typed FIFO with clock-edge semantics: an element pushed
// in cycle n is visible to the consumer from cycle n+1, and a slot freed by a
// pop in cycle n is available to the producer from cycle n+1. Back-pressure
// is explicit ([FIFO.CanPush]); [FIFO.Len] is the level for waveforms.
//
// [TimedQueue] carries elements that become visible at a chosen future cycle
// (a link with serialization and propagation delay, a switch's delivery). It
// does not need ticking: the engine wakes its consumer at the head element's
// cycle, so links cost nothing per cycle.
//
// The package holds no global state; every engine is independent.
package engine
