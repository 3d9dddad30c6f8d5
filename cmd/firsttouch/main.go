// Command firsttouch measures what the first use of memory costs on this
// machine: the part of a command's time that `cp` of a file in the page
// cache does not pay, and that varies from run to run.
//
// It writes a file of -mb megabytes twice, in a row (the second after the
// first is deleted, into the pages that freed), then uses as much new
// memory twice (the second after the first is let go):
//
//	write, first   the page cache of a new file
//	write, again   the same, in the pages the first file just freed
//	memory, first  new memory of the process, each page touched once
//	memory, again  the same, after the first was given back
//
// On the Firecracker VMs the benchmarks run on, the guest kernel reports
// freed memory to the host in 8 MB blocks (page_reporting; dmesg says
// "Free page reporting enabled"), and the host maps a page again the
// first time the guest uses it: memory freed a few seconds before (a
// deleted output, a command that exited) costs that again. A command that
// indexes a session and writes its result uses new memory twice (its heap,
// the output's page cache); `cp` only the page cache, of the file
// bench/run.sh deleted just before. Run it after a pause (-wait) to see
// the first use cold.
//
//	go run ./cmd/firsttouch [-mb 300] [-dir /tmp] [-wait 20s]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"
)

func main() {
	mb := flag.Int("mb", 300, "megabytes to write and to use")
	dir := flag.String("dir", os.TempDir(), "folder to write the scratch file in")
	wait := flag.Duration("wait", 0, "pause first (freed memory is given back to the host meanwhile)")
	flag.Parse()
	debug.SetGCPercent(-1)
	time.Sleep(*wait)
	path := filepath.Join(*dir, fmt.Sprintf("firsttouch-%d.tmp", os.Getpid()))
	defer os.Remove(path)
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	write := func() time.Duration {
		os.Remove(path)
		start := time.Now()
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "firsttouch:", err)
			os.Exit(1)
		}
		for range *mb {
			if _, err := f.Write(buf); err != nil {
				fmt.Fprintln(os.Stderr, "firsttouch:", err)
				os.Exit(1)
			}
		}
		f.Close()
		return time.Since(start)
	}
	touch := func() time.Duration {
		start := time.Now()
		m, free, err := anonMap(*mb << 20)
		if err != nil {
			fmt.Fprintln(os.Stderr, "firsttouch:", err)
			os.Exit(1)
		}
		for i := 0; i < len(m); i += 4096 {
			m[i] = 1
		}
		d := time.Since(start)
		free()
		return d
	}
	w1 := write()
	w2 := write()
	os.Remove(path)
	m1 := touch()
	m2 := touch()
	fmt.Printf("write %d MB, first: %.3f s; again: %.3f s\n", *mb, w1.Seconds(), w2.Seconds())
	fmt.Printf("memory %d MB, first: %.3f s; again: %.3f s\n", *mb, m1.Seconds(), m2.Seconds())
}
