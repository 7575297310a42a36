package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// lakesql runs in a child process of the bench's own binary (argument
// serverArg), so its peak RSS is its own and not DuckDB's. The child serves
// the warehouse on a free port and a small control endpoint for CPU
// profiles; it stops when its stdin closes (the bench exited) or on
// SIGTERM.

const serverArg = "__lakesql-server"

// runServerChild is the child's main.
func runServerChild(args []string) int {
	fs := flag.NewFlagSet(serverArg, flag.ContinueOnError)
	wh := fs.String("warehouse", "", "warehouse")
	priv := fs.String("secure-file-priv", "", "server-side LOAD DATA folder")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx := context.Background()
	srv, err := sqlengine.New(ctx, sqlengine.Config{Warehouse: *wh, Host: "127.0.0.1", Port: 0,
		Security: sqlengine.SecurityConfig{SecureFilePriv: *priv, LocalInfile: true}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "lakesql:", err)
		return 1
	}
	ctl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "control:", err)
		return 1
	}
	go http.Serve(ctl, profileControl())
	errc := make(chan error, 1)
	go func() { errc <- srv.Start() }()
	fmt.Printf("ADDR %s CTL %s\n", srv.Addr(), ctl.Addr())
	stdin := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stdin) }()
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "lakesql:", err)
		return 1
	case <-stdin:
	}
	srv.Close()
	return 0
}

// profileControl serves /cpu/start?path=F, /cpu/stop and /heap?path=F.
// With LAKESQL_BENCH_TRACE=1 in the environment, a CPU profile to F also
// writes an execution trace (runtime/trace) to F.trace.
func profileControl() http.Handler {
	var mu sync.Mutex
	var cur, tr *os.File
	withTrace := os.Getenv("LAKESQL_BENCH_TRACE") == "1"
	mux := http.NewServeMux()
	mux.HandleFunc("/cpu/start", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if cur != nil {
			http.Error(w, "profile running", 409)
			return
		}
		f, err := os.Create(r.URL.Query().Get("path"))
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		cur = f
		if withTrace {
			if tf, err := os.Create(r.URL.Query().Get("path") + ".trace"); err == nil {
				if trace.Start(tf) == nil {
					tr = tf
				} else {
					tf.Close()
				}
			}
		}
	})
	mux.HandleFunc("/cpu/stop", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if cur != nil {
			pprof.StopCPUProfile()
			cur.Close()
			cur = nil
		}
		if tr != nil {
			trace.Stop()
			tr.Close()
			tr = nil
		}
	})
	mux.HandleFunc("/heap", func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Create(r.URL.Query().Get("path"))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer f.Close()
		runtime.GC()
		pprof.WriteHeapProfile(f)
	})
	return mux
}

// lakesqlServer is the parent's handle on the child.
type lakesqlServer struct {
	Addr  string
	ctl   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan error
}

func startLakesql(wh, priv, logPath string) (*lakesqlServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, serverArg, "--warehouse", wh, "--secure-file-priv", priv)
	cmd.Stderr = logf
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &lakesqlServer{cmd: cmd, stdin: stdin, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait(); logf.Close() }()
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		io.Copy(logf, out)
	}()
	select {
	case l, ok := <-line:
		f := strings.Fields(l)
		if !ok || len(f) != 4 || f[0] != "ADDR" {
			s.Stop()
			return nil, fmt.Errorf("lakesql server did not start (see %s)", logPath)
		}
		s.Addr, s.ctl = f[1], f[3]
	case <-time.After(2 * time.Minute):
		s.Stop()
		return nil, fmt.Errorf("lakesql server not ready after 2 min (see %s)", logPath)
	}
	return s, nil
}

// Stop closes the child's stdin and waits for it (SIGKILL after 30 s).
func (s *lakesqlServer) Stop() {
	s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

func (s *lakesqlServer) Pid() int { return s.cmd.Process.Pid }

func (s *lakesqlServer) control(path string) error {
	resp, err := http.Get("http://" + s.ctl + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s", path, b)
	}
	return nil
}

// StartCPU and StopCPU bracket a CPU profile written to path.
func (s *lakesqlServer) StartCPU(path string) error {
	abs, _ := filepath.Abs(path)
	return s.control("/cpu/start?path=" + abs)
}

func (s *lakesqlServer) StopCPU() error { return s.control("/cpu/stop") }

// procStatus reads VmHWM and VmRSS (bytes) of pid.
func procStatus(pid int) (hwm, rss int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			hwm = v << 10
		case "VmRSS:":
			rss = v << 10
		}
	}
	return hwm, rss
}

// resetPeak restarts pid's peak RSS (VmHWM) from its current RSS.
func resetPeak(pid int) {
	os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0)
}
