package backup

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestDirectWritesTurnOnUnderNoPlainWrite: direct writes are turned on by
// the first large block (the file's flags changed); a small block (the
// file's last, unaligned) written plainly by another goroutine at that
// moment must not be made while the flag is on (the kernel refuses an
// unaligned direct write: EINVAL, and the clone failed). Many tries of
// the two at once.
func TestDirectWritesTurnOnUnderNoPlainWrite(t *testing.T) {
	big := make([]byte, directMin+directAlign)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	mem := make([]byte, len(big)+directAlign)
	k := int(uintptr(unsafe.Pointer(&mem[0])) % directAlign)
	aligned := mem[(directAlign-k)%directAlign:][:len(big)]
	copy(aligned, big)
	small := []byte("the last line, not a page\n")
	dir := t.TempDir()
	for try := 0; try < 300; try++ {
		f, err := os.Create(filepath.Join(dir, "f"))
		require.NoError(t, err)
		d := newDirectWrites(f, nil)
		var wg sync.WaitGroup
		start := make(chan struct{})
		var errBig, errSmall error
		wg.Go(func() { <-start; _, errBig = d.writeAt(aligned, 0) })
		wg.Go(func() { <-start; _, errSmall = d.writeAt(small, int64(len(big))) })
		close(start)
		wg.Wait()
		require.NoError(t, errBig, "try %d: the large block", try)
		require.NoError(t, errSmall, "try %d: the small block written as direct writes were turned on", try)
		require.NoError(t, d.finish())
		require.NoError(t, f.Close())
		got, err := os.ReadFile(filepath.Join(dir, "f"))
		require.NoError(t, err)
		require.True(t, bytes.Equal(append(append([]byte{}, big...), small...), got), "try %d: the bytes", try)
	}
}
