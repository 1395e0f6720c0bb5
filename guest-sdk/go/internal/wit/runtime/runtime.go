// Package wit_runtime is the canonical-ABI memory support of the generated
// bindings. It implements the API of go.bytecodealliance.org/pkg/wit/runtime
// that `wit-bindgen go` 0.63.0 output needs (see ../README.md), with one
// deliberate difference in where cabi_realloc takes its memory.
//
// Two directions:
//
//   - Go -> host (results of exports, arguments of imports): [Allocate]
//     takes ordinary Go heap memory, kept alive with a [Pinner] until the
//     host has read it. Go's collector never moves heap objects, so a live
//     block keeps its address.
//   - host -> Go (arguments of exports, results of imports): the host calls
//     the `cabi_realloc` export while it lowers values, and the canonical
//     ABI forbids calling any import meanwhile (wasmtime traps: "cannot
//     leave component instance"). Go's allocator may start, assist or finish
//     a garbage collection, which reads the monotonic and the wall clock
//     through WASI imports. So cabi_realloc never touches the Go heap: it
//     bump-allocates from an arena of pages taken directly from the runtime
//     (runtime.sbrk). The generated code lifts strings and byte lists
//     without copying, so they point into the arena; the SDK copies them
//     into the Go heap, then calls [Release] and the arena is reused by the
//     next call. (go.bytecodealliance.org/pkg allocates from the Go heap and
//     pauses only the monotonic clock, which traps as soon as a collection
//     ends inside cabi_realloc; this package came out of finding that.)
package wit_runtime

import (
	"fmt"
	"unsafe"
)

// Pinner keeps the Go objects whose addresses the generated code hands to
// the host alive until Unpin (an export's post-return, or the end of an
// import call). generate.sh points the generated code's `runtime.Pinner`
// here: runtime.Pinner's Pin and Unpin take a lock and update span
// metadata per object, which cost about a third of a small poll's time in
// a profile, while Go's collector never moves heap objects, so keeping
// them reachable is all the host needs. (Objects whose address escapes
// this way are on the heap: Pin stores them.)
type Pinner struct {
	refs []unsafe.Pointer
}

// Pin keeps the object p points into alive until Unpin.
func (p *Pinner) Pin(ptr unsafe.Pointer) {
	if ptr != nil {
		p.refs = append(p.refs, ptr)
	}
}

// Unpin releases what Pin kept, keeping the memory of the list.
func (p *Pinner) Unpin() {
	clear(p.refs)
	p.refs = p.refs[:0]
}

// Allocate returns size bytes of zeroed Go memory aligned to align (1, 2, 4
// or 8, the canonical ABI's alignments), pinned with pinner. A zero size
// yields nil, which the canonical ABI accepts for empty lists.
func Allocate(pinner *Pinner, size, align uintptr) unsafe.Pointer {
	if size == 0 {
		return nil
	}
	var p unsafe.Pointer
	// A slice of an element type of the requested alignment, so the
	// allocator aligns the block. The blocks hold 32-bit addresses, not Go
	// pointers, so they are pointer-free (noscan) memory.
	switch align {
	case 1:
		p = unsafe.Pointer(unsafe.SliceData(make([]uint8, size)))
	case 2:
		p = unsafe.Pointer(unsafe.SliceData(make([]uint16, (size+1)/2)))
	case 4:
		p = unsafe.Pointer(unsafe.SliceData(make([]uint32, (size+3)/4)))
	case 8:
		p = unsafe.Pointer(unsafe.SliceData(make([]uint64, (size+7)/8)))
	default:
		panic(fmt.Sprintf("wit_runtime: unsupported alignment %d", align))
	}
	pinner.Pin(p)
	return p
}

// Unpin is called by the generated code once the arguments of an export
// are lifted. Nothing is pinned on that side here (the arguments live in
// the arena, see the package comment), so it does nothing; [Release] is
// what frees them.
func Unpin() {}

// Release makes the memory the host allocated through cabi_realloc
// available again. Call it only once nothing refers to lifted arguments or
// import results any more: the SDK calls it right after copying them.
func Release() { release() }
