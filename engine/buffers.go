package engine

import "math/bits"

// Buffers is a free list of byte buffers shared by the components of one
// [Engine] ([Engine.Buffers]): a component that allocates a buffer for
// every packet it makes (a frame) takes it with Get, and whichever
// component finishes with the buffer last (the receiver that parsed the
// frame) returns it with Put, so a model that moves packets at a steady
// rate stops allocating once the buffers in flight have been made. Reuse
// is only a cost saving: a buffer from Get has stale contents beyond its
// length 0, so a user writes every byte it uses (append does).
//
// Ownership is the rule that makes this safe: a buffer handed to Put must
// not be read or written again by anyone, so only the last holder of a
// buffer may release it, and a component may release only buffers whose
// ownership it was given by its interface's documentation (a frame pushed
// into a NIC's input port, for example). A buffer never released is simply
// left to the garbage collector.
//
// Buffers are kept in power-of-two capacity classes from 64 bytes to 64 KiB,
// at most [BuffersClassBytes] bytes of free buffers per class (so a model
// that releases more than it takes does not grow without bound). Get(n)
// returns a buffer of capacity at least n, allocating one of the class
// capacity 2^ceil(log2 n) when the class is empty; Put files a buffer under
// the class of its capacity rounded down. Like the engine, Buffers is not
// safe for concurrent use: only the engine's components, during its run,
// may use it.
type Buffers struct {
	free [buffersClasses][][]byte
	// gets, news and puts count Get calls, Gets that allocated, and Puts
	// that kept the buffer.
	gets, news, puts uint64
}

const (
	buffersMinShift = 6  // smallest class: 64 bytes
	buffersMaxShift = 16 // largest class: 64 KiB
	buffersClasses  = buffersMaxShift - buffersMinShift + 1
)

// BuffersClassBytes bounds the free bytes [Buffers] keeps per capacity
// class: 4 MiB (2048 buffers of 2 KiB, 64 of 64 KiB).
const BuffersClassBytes = 4 << 20

// Get returns a buffer of length 0 and capacity at least n (n <= 0 gives
// the smallest class). Requests above 64 KiB are allocated exactly and
// not pooled.
func (b *Buffers) Get(n int) []byte {
	b.gets++
	if n > 1<<buffersMaxShift {
		b.news++
		return make([]byte, 0, n)
	}
	c := 0
	if n > 1<<buffersMinShift {
		c = bits.Len(uint(n-1)) - buffersMinShift
	}
	if l := b.free[c]; len(l) > 0 {
		p := l[len(l)-1]
		l[len(l)-1] = nil
		b.free[c] = l[:len(l)-1]
		return p
	}
	b.news++
	return make([]byte, 0, 1<<(c+buffersMinShift))
}

// Put returns p to the free list; the caller and everyone else must not use
// p (or any slice of its array) afterwards. Buffers of capacity below 64
// bytes or above 64 KiB, and buffers beyond the class bound, are dropped
// (left to the garbage collector).
func (b *Buffers) Put(p []byte) {
	n := cap(p)
	if n < 1<<buffersMinShift || n > 1<<(buffersMaxShift+1)-1 {
		return
	}
	c := bits.Len(uint(n)) - 1 - buffersMinShift
	if len(b.free[c]) >= BuffersClassBytes>>(c+buffersMinShift) {
		return
	}
	b.puts++
	b.free[c] = append(b.free[c], p[:0])
}

// BuffersStats counts the use of a [Buffers].
type BuffersStats struct {
	Gets   uint64 // Get calls
	Allocs uint64 // Gets that allocated a new buffer (no free one of the class)
	Puts   uint64 // buffers kept by Put
	Free   int    // buffers on the free list now
}

// Stats returns the counters.
func (b *Buffers) Stats() BuffersStats {
	s := BuffersStats{Gets: b.gets, Allocs: b.news, Puts: b.puts}
	for _, l := range b.free {
		s.Free += len(l)
	}
	return s
}
