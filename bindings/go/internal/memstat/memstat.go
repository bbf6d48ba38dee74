// Package memstat reads how much memory the process holds, for the load
// test: the resident set, and the C heap (glibc's malloc) in use.
package memstat

/*
#include <malloc.h>

static size_t memstat_in_use(void) {
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}
*/
import "C"

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Sample is the memory the process holds at one moment.
type Sample struct {
	// RSS is the resident set size (VmRSS), in bytes.
	RSS int64
	// Trimmed is the resident set after malloc_trim returned the C heap's
	// free pages to the system: what is held, without the allocator's
	// reserve (glibc keeps freed memory of its per-thread arenas).
	Trimmed int64
	// CHeap is the C heap in use (mallinfo2: allocated chunks and mmapped blocks).
	CHeap int64
	// GoHeap is the Go heap in use.
	GoHeap int64
}

// Take collects Go's garbage, then reads the memory held.
func Take() (Sample, error) {
	runtime.GC()
	debug.FreeOSMemory()
	var s Sample
	var err error
	if s.RSS, err = rss(); err != nil {
		return s, err
	}
	C.malloc_trim(0)
	if s.Trimmed, err = rss(); err != nil {
		return s, err
	}
	s.CHeap = int64(C.memstat_in_use())
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.GoHeap = int64(m.HeapInuse)
	return s, nil
}

func rss() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	scanner := bufio.NewScanner(bytes.NewReader(data))
	for scanner.Scan() {
		if fields := strings.Fields(scanner.Text()); len(fields) >= 2 && fields[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, os.ErrNotExist
}
