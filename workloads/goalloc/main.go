// SPDX-License-Identifier: GPL-2.0-or-later
// goalloc — memory freed through Go's runtime, for beyond/allocators.
//
//	goalloc --size SIZE [--chunk SIZE] [--madvdontneed 0|1|default] [--hold MS]
//	        [--pressure SIZE] [--event-fd N] [--ack-fd N]
//
// The MADV_FREE article: Go 1.12-1.15 returned freed heap with MADV_FREE, 1.16+
// with MADV_DONTNEED (GODEBUG=madvdontneed=1 became the default).  This asks the
// runtime for SIZE in CHUNK slices (each written), drops them, runs
// debug.FreeOSMemory() (a GC and a scavenge of everything free: what the
// background scavenger would return over time), and reports after each step
// what the process holds (smaps_rollup: Rss, LazyFree), in the event protocol
// of workloads/events.md.  --madvdontneed sets GODEBUG before the runtime
// starts: the program re-executes itself once with GODEBUG=madvdontneed=N
// (the runtime reads it at start-up only).
//
// Its options are the C declaration's (workloads/decl/goalloc.c, written into
// decl_gen.go at build time by decl2go): `goalloc --help` prints them.
// Standard library only (Debian's golang-go 1.19; no module download), built
// by CMake when `go` is found.  No seccomp filter: the C workloads' lockdown
// list is not the Go runtime's (threads, signals, futexes); the sandbox is the
// same.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// monoNs is CLOCK_MONOTONIC in nanoseconds, the protocol's t_ns (workloads/events.md).
func monoNs() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

var (
	events *os.File
	ack    *os.File
	seq    int
)

func parseSize(s string) (uint64, error) {
	mult := uint64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * mult, nil
}

// rollup reads Rss, LazyFree and AnonHugePages (kB) from /proc/self/smaps_rollup.
func rollup() string {
	f, err := os.Open("/proc/self/smaps_rollup")
	if err != nil {
		return `"rollup":{}`
	}
	defer f.Close()
	vals := map[string]string{"Rss:": "0", "LazyFree:": "0", "AnonHugePages:": "0"}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) >= 2 {
			if _, ok := vals[w[0]]; ok {
				vals[w[0]] = w[1]
			}
		}
	}
	return fmt.Sprintf(`"rollup":{"rss_kb":%s,"lazyfree_kb":%s,"anonhuge_kb":%s}`,
		vals["Rss:"], vals["LazyFree:"], vals["AnonHugePages:"])
}

func emit(line string) {
	if events == nil {
		fmt.Println(line)
		return
	}
	events.Write([]byte(line + "\n")) // one write: lines are below PIPE_BUF
}

func step(name, arg string) {
	seq++
	emit(fmt.Sprintf(`{"event":"step","seq":%d,"step":%q,"arg":%q,"t_ns":%d,%s}`,
		seq, name, arg, monoNs(), rollup()))
	if ack != nil {
		b := make([]byte, 1)
		if n, err := ack.Read(b); n != 1 || err != nil {
			fmt.Fprintln(os.Stderr, "goalloc: the harness went away")
			os.Exit(1)
		}
	}
}

func fail(msg string) {
	emit(fmt.Sprintf(`{"event":"error","step":"args","msg":%q}`, msg))
	fmt.Fprintln(os.Stderr, "goalloc: "+msg)
	os.Exit(2)
}

// declOpt is one row of the C declaration (struct wl_opt, workloads/decl.h).
// declOpts and declArgvOpts come from workloads/decl/goalloc.c: the build
// writes them into decl_gen.go (workloads/goalloc/decl2go.c), so the options
// here are the ones the scenario parser types, with the same types and flags.
type declOpt struct {
	Key, Flag, Type, Enums string
	Required               bool
	Help                   string
}

// usage is the C workloads' --help (wl_decl_usage in workloads/decl.c).
func usage(f *os.File) {
	all := append(append([]declOpt{}, declOpts...), declArgvOpts...)
	fmt.Fprintf(f, "usage: %s", declProgram)
	for _, o := range all {
		v := " V"
		if o.Type == "bool" {
			v = ""
		}
		if o.Required {
			fmt.Fprintf(f, " %s%s", o.Flag, v)
		} else {
			fmt.Fprintf(f, " [%s%s]", o.Flag, v)
		}
	}
	fmt.Fprintf(f, " [--event-fd N] [--ack-fd N]\n%s\n", declSummary)
	for _, o := range all {
		if o.Help != "" {
			fmt.Fprintf(f, "  %-22s %s\n", o.Flag, o.Help)
		}
	}
}

// typed checks v as the declaration's type says (wl_parse_value in
// workloads/decl.c, for the types goalloc declares).
func typed(o declOpt, v string) error {
	switch o.Type {
	case "mem", "positive_size":
		_, err := parseSize(v)
		return err
	case "uint", "positive_uint":
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("expected a whole number, got '%s'", v)
		}
		if o.Type == "positive_uint" && n == 0 {
			return fmt.Errorf("must be at least 1, got '%s'", v)
		}
	case "enum":
		for _, e := range strings.Split(o.Enums, "|") {
			if e == v {
				return nil
			}
		}
		return fmt.Errorf("'%s' is not one of %s", v, o.Enums)
	case "text", "bool":
	default:
		return fmt.Errorf("type %s is not one goalloc can parse (workloads/goalloc/main.go typed)", o.Type)
	}
	return nil
}

// match: is a one of the declared flags ("--size V" or "--size=V")?  The
// option and its value, and how many arguments it took.
func match(args []string, i int) (*declOpt, string, int, error) {
	a := args[i]
	for _, list := range [][]declOpt{declOpts, declArgvOpts} {
		for k := range list {
			o := &list[k]
			if a == o.Flag {
				if o.Type == "bool" {
					return o, "", 1, nil
				}
				if i+1 >= len(args) {
					return o, "", 1, fmt.Errorf("%s needs a value", o.Flag)
				}
				return o, args[i+1], 2, nil
			}
			if strings.HasPrefix(a, o.Flag+"=") {
				return o, a[len(o.Flag)+1:], 1, nil
			}
		}
	}
	return nil, "", 0, nil
}

func main() {
	var size, chunk, pressure uint64 = 0, 64 << 10, 0
	var hold uint64
	madv := ""
	// What each declared option sets: one entry per row of decl/goalloc.c.
	set := map[string]func(v string) error{
		"size":     func(v string) (err error) { size, err = parseSize(v); return },
		"chunk":    func(v string) (err error) { chunk, err = parseSize(v); return },
		"pressure": func(v string) (err error) { pressure, err = parseSize(v); return },
		"hold":     func(v string) (err error) { hold, err = strconv.ParseUint(v, 10, 64); return },
		"madvdontneed": func(v string) error {
			if v != "default" {
				madv = v
			}
			return nil
		},
	}
	declared := map[string]bool{}
	for _, list := range [][]declOpt{declOpts, declArgvOpts} {
		for _, o := range list {
			declared[o.Key] = true
			if set[o.Key] == nil {
				fail("the declaration (workloads/decl/goalloc.c) has option " + o.Key + ", main.go does not set it")
			}
		}
	}
	for k := range set {
		if !declared[k] {
			fail("main.go sets option " + k + ", the declaration (workloads/decl/goalloc.c) does not have it")
		}
	}
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "--help" || args[0] == "-h") {
		usage(os.Stdout)
		return
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--event-fd" || a == "--ack-fd" {
			if i+1 >= len(args) {
				fail(a + " needs a value")
			}
			i++
			fd, e := strconv.Atoi(args[i])
			if e != nil || fd < 0 {
				fail(a + ": not a file descriptor")
			}
			if a == "--event-fd" {
				events = os.NewFile(uintptr(fd), "events")
			} else {
				ack = os.NewFile(uintptr(fd), "ack")
			}
			continue
		}
		o, v, n, err := match(args, i)
		if err != nil {
			fail(err.Error())
		}
		if o == nil {
			fail(a + ": unknown argument")
		}
		i += n - 1
		if err = typed(*o, v); err == nil {
			err = set[o.Key](v)
		}
		if err != nil {
			fail(o.Flag + ": " + err.Error())
		}
	}
	if size == 0 || chunk > size {
		fail("--size is required, and --chunk must not exceed it")
	}
	want := "madvdontneed=" + madv
	if madv != "" && os.Getenv("GODEBUG") != want {
		exe, err := os.Executable()
		if err == nil {
			env := append(os.Environ(), "GODEBUG="+want)
			err = syscall.Exec(exe, os.Args, env)
		}
		fail("re-exec with GODEBUG=" + want + ": " + err.Error())
	}
	emit(fmt.Sprintf(`{"event":"start","program":"goalloc","pid":%d,"page_size":%d,"t_ns":%d,"go":%q,"godebug":%q,"size_bytes":%d,"chunk_bytes":%d}`,
		os.Getpid(), os.Getpagesize(), monoNs(), runtime.Version(), os.Getenv("GODEBUG"), size, chunk))

	n := int(size / chunk)
	chunks := make([][]byte, n)
	page := os.Getpagesize()
	for i := range chunks {
		c := make([]byte, chunk)
		for o := 0; o < len(c); o += page {
			c[o] = 0xA5
		}
		chunks[i] = c
	}
	step("alloc", strconv.FormatUint(size, 10))
	for i := range chunks {
		chunks[i] = nil
	}
	chunks = nil
	runtime.GC()
	step("free", "")
	debug.FreeOSMemory()
	step("trim", "")
	if hold > 0 {
		time.Sleep(time.Duration(hold) * time.Millisecond)
		step("hold", strconv.FormatUint(hold, 10))
	}
	if pressure > 0 {
		p, err := syscall.Mmap(-1, 0, int(pressure), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			emit(fmt.Sprintf(`{"event":"error","step":"pressure","msg":%q}`, err.Error()))
			os.Exit(1)
		}
		for o := 0; o < len(p); o += page {
			p[o] = 1
		}
		syscall.Munmap(p)
		step("pressure", strconv.FormatUint(pressure, 10))
	}
	emit(fmt.Sprintf(`{"event":"done","seq":%d}`, seq))
}
