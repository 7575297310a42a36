package sqlengine

import (
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// A finished statement keeps the drain until its answer is written: Shutdown
// must not return (and the process exit) before the client has its OK.
func TestDrainReleasedAfterAnswerWritten(t *testing.T) {
	var d drain
	server, client := net.Pipe()
	defer client.Close()
	fc := &flushConn{Conn: server}
	done, err := d.enter()
	if err != nil {
		t.Fatal(err)
	}
	fc.releaseOnWrite(done) // the handler returned; vitess has not flushed yet
	idle, running := d.stop()
	if running != 1 {
		t.Fatalf("running = %d, want 1", running)
	}
	select {
	case <-idle:
		t.Fatal("drain released before the answer was written")
	case <-time.After(50 * time.Millisecond):
	}
	go func() { buf := make([]byte, 16); client.Read(buf) }()
	if _, err := fc.Write([]byte("OK packet")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-idle:
	case <-time.After(5 * time.Second):
		t.Fatal("drain not released after the answer was written")
	}
	if _, err := d.enter(); err == nil {
		t.Fatal("a statement was accepted after stop")
	}
}

// Under TLS the flushConn is found beneath the tls.Conn; a close releases.
func TestFlushConnUnderTLSAndClose(t *testing.T) {
	var d drain
	server, client := net.Pipe()
	defer client.Close()
	fc := &flushConn{Conn: server}
	if got := findFlushConn(tls.Server(fc, &tls.Config{})); got != fc {
		t.Fatalf("findFlushConn under TLS = %v", got)
	}
	done, _ := d.enter()
	fc.releaseOnWrite(done)
	idle, _ := d.stop()
	fc.Close()
	select {
	case <-idle:
	case <-time.After(5 * time.Second):
		t.Fatal("drain not released by Close")
	}
}
