package tests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/lakesql/lakesql/lsmwrite/compactjob"
)

// openPTY opens a pseudo-terminal: the master to read what is written to
// the terminal, the slave (a terminal) to write to.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	var unlock int32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, m.Fd(), unix.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlockpt: %v", e)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pty slave: %v", err)
	}
	return m, s
}

// TestCompactionJobProgressBar: on a terminal `lakesql compact` draws a
// progress bar of the buckets (the plain progress lines are for pipes,
// TestCompactionJobWhileServing checks them), and the result line is the
// same.
func TestCompactionJobProgressBar(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "default")
	mustExec(t, db, "CREATE TABLE pb (k BIGINT PRIMARY KEY, v BIGINT) WITH ('bucket' = '4', 'write-only' = 'true')")
	for i := 0; i < 4; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO pb VALUES (%d, 1), (%d, 2), (%d, 3), (%d, 4)", 4*i, 4*i+1, 4*i+2, 4*i+3))
	}
	master, slave := openPTY(t)
	defer master.Close()
	drawn := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(master) // EIO once the slave is closed
		drawn <- b
	}()
	var out bytes.Buffer
	err := compactjob.Run(context.Background(), &out, slave, []string{"--warehouse", wh, "--table", "default.pb", "--full"})
	slave.Close()
	if err != nil {
		t.Fatal(err)
	}
	tty := string(<-drawn)
	// The bar: its description, the bucket count and a percentage; no
	// plain progress line.
	if !strings.Contains(tty, "compact default.pb") || !strings.Contains(tty, "/4, ") || !strings.Contains(tty, "%") {
		t.Errorf("no progress bar on the terminal: %q", tty)
	}
	if strings.Contains(tty, "buckets to look at") {
		t.Errorf("plain progress lines on a terminal: %q", tty)
	}
	if !strings.Contains(out.String(), "snapshot") || !strings.Contains(out.String(), "4 buckets") {
		t.Errorf("result line: %q", out.String())
	}
}
