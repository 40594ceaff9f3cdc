package engine

import "testing"

// TestBuffersGetCapacity checks the capacity class of fresh buffers: the
// smallest power of two >= n within [64, 64 KiB], exact above (values from
// the class rule in the Buffers doc comment).
func TestBuffersGetCapacity(t *testing.T) {
	tests := []struct{ n, wantCap int }{
		{-1, 64}, {0, 64}, {1, 64}, {64, 64}, {65, 128}, {128, 128}, {1090, 2048}, {2048, 2048},
		{2049, 4096}, {1 << 16, 1 << 16}, {1<<16 + 1, 1<<16 + 1},
	}
	var b Buffers
	for _, tc := range tests {
		p := b.Get(tc.n)
		if len(p) != 0 || cap(p) != tc.wantCap {
			t.Errorf("Get(%d): len %d cap %d, want len 0 cap %d", tc.n, len(p), cap(p), tc.wantCap)
		}
	}
	if s := b.Stats(); s.Gets != uint64(len(tests)) || s.Allocs != uint64(len(tests)) || s.Puts != 0 || s.Free != 0 {
		t.Errorf("Stats = %+v, want %d gets and allocations, nothing free", s, len(tests))
	}
}

// TestBuffersReuse checks that a released buffer comes back (last in,
// first out) to a Get of its class or a smaller request rounded to it, never
// to a request its capacity cannot hold, and that buffers below 64 bytes or
// of 128 KiB and more are not kept.
func TestBuffersReuse(t *testing.T) {
	var b Buffers
	a1 := b.Get(1500)            // class 2048
	a2 := b.Get(2000)            // class 2048
	odd := make([]byte, 3, 3000) // capacity rounded down: class 2048
	b.Put(append(a1, 1, 2, 3))
	b.Put(a2)
	b.Put(odd)
	b.Put(make([]byte, 0, 63))    // too small: dropped
	b.Put(make([]byte, 0, 1<<17)) // too large: dropped
	if s := b.Stats(); s.Puts != 3 || s.Free != 3 {
		t.Fatalf("after puts: %+v, want 3 kept", s)
	}
	same := func(p, q []byte) bool { return cap(p) == cap(q) && &p[:1][0] == &q[:1][0] }
	if p := b.Get(4000); same(p, odd) || cap(p) != 4096 {
		t.Errorf("Get(4000) reused a smaller buffer (cap %d)", cap(p))
	}
	for _, want := range [][]byte{odd, a2, a1} {
		p := b.Get(1025)
		if len(p) != 0 || !same(p, want) {
			t.Fatalf("Get(1025) = cap %d, want the buffer of cap %d released last", cap(p), cap(want))
		}
	}
	if p := b.Get(1025); cap(p) != 2048 || b.Stats().Allocs != 4 {
		t.Errorf("empty class: cap %d, allocations %d; want a new 2048-byte buffer, 4 allocations (a1, a2, Get(4000), this one)", cap(p), b.Stats().Allocs)
	}
}

// TestBuffersBound checks that a class keeps at most BuffersClassBytes of
// free buffers: 2048 buffers of 2 KiB.
func TestBuffersBound(t *testing.T) {
	var b Buffers
	for i := 0; i < 3000; i++ {
		b.Put(make([]byte, 0, 2048))
	}
	if s := b.Stats(); s.Free != BuffersClassBytes/2048 || s.Puts != BuffersClassBytes/2048 {
		t.Fatalf("Stats = %+v, want %d free", s, BuffersClassBytes/2048)
	}
}

// TestEngineBuffers checks that an engine has one free list, shared by
// every caller, and engines do not share theirs.
func TestEngineBuffers(t *testing.T) {
	e1, _ := New(Config{Freq: GHz})
	e2, _ := New(Config{Freq: GHz})
	if e1.Buffers() != e1.Buffers() || e1.Buffers() == e2.Buffers() {
		t.Fatal("Buffers must be one per engine")
	}
	e1.Buffers().Put(make([]byte, 0, 256))
	if e1.Buffers().Stats().Free != 1 || e2.Buffers().Stats().Free != 0 {
		t.Fatal("a buffer released to one engine appeared in the other")
	}
}
