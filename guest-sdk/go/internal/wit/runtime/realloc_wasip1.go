//go:build wasip1

package wit_runtime

import (
	"unsafe"
)

// sbrk is the Go runtime's page allocator on wasm: it grows the linear
// memory past everything the Go heap uses (needs -ldflags=-checklinkname=0).
//
//go:linkname sbrk runtime.sbrk
func sbrk(n uintptr) unsafe.Pointer

// heapReady turns true when this package is initialized. Before that (while
// the Go runtime initializes) the WASI adapter calls cabi_realloc once for
// its own state, which must never be reused.
var heapReady = false

func init() { heapReady = true }

//go:wasmexport cabi_realloc
func cabiRealloc(old unsafe.Pointer, oldSize, align, newSize uintptr) unsafe.Pointer {
	if newSize == 0 {
		return nil
	}
	var p unsafe.Pointer
	if heapReady {
		p = arena.alloc(newSize, align)
	} else {
		p = permanent.alloc(newSize, align)
	}
	if p == nil {
		// Out of memory (the host's cap on linear memory). There is no way
		// to report it from here: trap.
		panic("cabi_realloc: out of memory")
	}
	if old != nil && oldSize > 0 {
		copy(unsafe.Slice((*byte)(p), newSize), unsafe.Slice((*byte)(old), min(oldSize, newSize)))
	}
	return p
}

// chunkHeader starts every chunk of a bump allocator: chunks form a list,
// kept for reuse after a reset.
type chunkHeader struct {
	next uintptr // the next chunk, or 0
	end  uintptr // the end of this chunk
}

const (
	headerSize = unsafe.Sizeof(chunkHeader{})
	pageSize   = 64 << 10
	minChunk   = 4 * pageSize
)

// bump is a bump allocator over chunks taken with sbrk. It never allocates
// Go memory, so it is safe inside cabi_realloc.
type bump struct {
	first, cur uintptr // chunk list and the chunk being filled
	next, end  uintptr // free space in cur
}

var (
	arena     bump // arguments and import results; reset by Release
	permanent bump // the adapter's state, allocated before init; never reset
)

func header(chunk uintptr) *chunkHeader { return (*chunkHeader)(unsafe.Pointer(chunk)) }

func (b *bump) use(chunk uintptr) {
	b.cur, b.next, b.end = chunk, chunk+headerSize, header(chunk).end
}

func (b *bump) alloc(size, align uintptr) unsafe.Pointer {
	for {
		if b.cur != 0 {
			start := (b.next + align - 1) &^ (align - 1)
			if start+size <= b.end {
				b.next = start + size
				return unsafe.Pointer(start)
			}
			if next := header(b.cur).next; next != 0 {
				b.use(next) // a chunk kept from before the last reset
				continue
			}
		}
		n := (max(size+align+headerSize, minChunk) + pageSize - 1) &^ (pageSize - 1)
		chunk := uintptr(sbrk(n))
		if chunk == 0 {
			return nil
		}
		*header(chunk) = chunkHeader{end: chunk + n}
		if b.cur == 0 {
			b.first = chunk
		} else {
			header(b.cur).next = chunk
		}
		b.use(chunk)
	}
}

// reset makes all chunks free again.
func (b *bump) reset() {
	if b.first != 0 {
		b.use(b.first)
	}
}

func release() { arena.reset() }
