// Command firsttouch measures what a page of memory costs the first time
// a process uses it, and what that does to writing a file: the part of a
// command's time that `cp` never pays.
//
// It writes a file of -mb megabytes (in /tmp by default) three ways, one
// after the other, and prints the time in write(2) and in all:
//
//	reuse  from one 1 MB buffer, as cp does
//	fresh  from new buffers, -mb megabytes of new memory in all (a command
//	       that indexes a session allocates as much before it writes)
//	touch  no file: only the new memory of "fresh", each page touched once
//
// On the Firecracker VMs the benchmarks run on, the guest kernel reports
// freed memory to the host in 8 MB blocks (page_reporting, "Free page
// reporting enabled" in dmesg), and the host maps a page again the first
// time the guest uses it: memory a process frees (or a deleted file's page
// cache) costs that again a few seconds later. bench/run.sh prints this
// program's figures in its notes.
//
//	go run ./bench/firsttouch [-mb 300] [-dir /tmp]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func main() {
	mb := flag.Int("mb", 300, "megabytes to write")
	dir := flag.String("dir", os.TempDir(), "folder to write the scratch file in")
	flag.Parse()
	path := filepath.Join(*dir, fmt.Sprintf("firsttouch-%d.tmp", os.Getpid()))
	defer os.Remove(path)
	const bs = 1 << 20
	write := func(next func() []byte) (inWrite, all time.Duration) {
		os.Remove(path)
		start := time.Now()
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "firsttouch:", err)
			os.Exit(1)
		}
		for range *mb {
			b := next()
			t := time.Now()
			if _, err := f.Write(b); err != nil {
				fmt.Fprintln(os.Stderr, "firsttouch:", err)
				os.Exit(1)
			}
			inWrite += time.Since(t)
		}
		f.Close()
		return inWrite, time.Since(start)
	}
	fill := func(b []byte) []byte {
		for i := 0; i < len(b); i += 64 {
			b[i] = byte(i)
		}
		return b
	}
	one := make([]byte, bs)
	w, a := write(func() []byte { return fill(one) })
	fmt.Printf("reuse: %d MB written from one buffer: %.3f s in write(2), %.3f s in all\n", *mb, w.Seconds(), a.Seconds())
	var held [][]byte
	w, a = write(func() []byte {
		b := fill(make([]byte, bs))
		held = append(held, b)
		return b
	})
	fmt.Printf("fresh: %d MB written from %d MB of new memory: %.3f s in write(2), %.3f s in all\n", *mb, len(held), w.Seconds(), a.Seconds())
	held = nil
	start := time.Now()
	for range *mb {
		held = append(held, fill(make([]byte, bs)))
	}
	fmt.Printf("touch: %d MB of new memory, each page used once: %.3f s\n", len(held), time.Since(start).Seconds())
}
