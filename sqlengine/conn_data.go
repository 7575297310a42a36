package sqlengine

import (
	"github.com/dolthub/vitess/go/mysql"
)

// connData is what lakesql keeps per protocol connection, in its
// mysql.Conn's ClientData. A connection runs one statement at a time in
// its own goroutine: the statement's handlers use it without locks (the
// disconnect watcher's timer goroutine only touches its connWatch, which
// has its own lock).
type connData struct {
	watch *connWatch   // the disconnect watcher (disconnect.go), nil until the first statement
	point pointScratch // the direct point answers' buffers (point_result.go)
}

// dataOf returns c's connData, made on first use.
func dataOf(c *mysql.Conn) *connData {
	d, _ := c.ClientData.(*connData)
	if d == nil {
		d = &connData{}
		c.ClientData = d
	}
	return d
}
