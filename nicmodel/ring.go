package nicmodel

// ring is a growable FIFO of plain values (a hardware table's ring buffer
// with the model's memory growing on demand). The zero ring is empty and
// usable.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

func (r *ring[T]) len() int { return r.n }

func (r *ring[T]) push(v T) {
	if r.n == len(r.buf) {
		nb := make([]T, max(8, 2*len(r.buf)))
		for i := 0; i < r.n; i++ {
			nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

// front returns a pointer to the oldest element. Precondition: len() > 0.
func (r *ring[T]) front() *T { return &r.buf[r.head] }

// at returns a pointer to the i-th oldest element. Precondition: i < len().
func (r *ring[T]) at(i int) *T { return &r.buf[(r.head+i)&(len(r.buf)-1)] }

// pop removes the oldest element. Precondition: len() > 0.
func (r *ring[T]) pop() T {
	v := r.buf[r.head]
	var zero T
	r.buf[r.head] = zero
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return v
}

// clear removes every element, keeping the storage.
func (r *ring[T]) clear() {
	var zero T
	for r.n > 0 {
		r.buf[r.head] = zero
		r.head = (r.head + 1) & (len(r.buf) - 1)
		r.n--
	}
	r.head = 0
}
