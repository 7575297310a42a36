package sqlengine

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// TestDisconnectWatcherPerConnection: one connection's watcher, re-armed by
// many statements (most short, some longer than the grace while the client
// stays), cancels none of them; the statement running when the client
// closes its socket (after the poll loop of an earlier one ended) is
// canceled with errClientGone; the watcher is made once.
func TestDisconnectWatcherPerConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	c := &mysql.Conn{Conn: server}
	var first *connWatch
	for i := range 200 {
		ctx, cancel := context.WithCancelCause(context.Background())
		stop := watchDisconnect(c, cancel)
		var w *connWatch
		if d, _ := c.ClientData.(*connData); d != nil {
			w = d.watch
		}
		if w == nil {
			t.Fatal("no watcher kept on the connection")
		}
		if first == nil {
			first = w
		} else if w != first {
			t.Fatalf("statement %d: a new watcher", i)
		}
		if i%50 == 49 {
			time.Sleep(disconnectGrace + 2*disconnectPoll + 50*time.Millisecond)
		}
		stop()
		if err := context.Cause(ctx); err != nil {
			t.Fatalf("statement %d canceled while its client is connected: %v", i, err)
		}
		cancel(nil)
		if i%50 == 49 { // the connection idle: the poll loop ends
			time.Sleep(2 * disconnectPoll)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := watchDisconnect(c, cancel)
	defer stop()
	client.Close()
	select {
	case <-ctx.Done():
		if !errors.Is(context.Cause(ctx), errClientGone) {
			t.Fatalf("canceled by %v, want errClientGone", context.Cause(ctx))
		}
	case <-time.After(disconnectGrace + 10*disconnectPoll):
		t.Fatal("the statement of a closed connection was not canceled")
	}
	closeWatch(c)
}
