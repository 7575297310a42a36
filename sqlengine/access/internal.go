package access

import "net"

// InternalAddr is the remote address of an in-process connection (the
// Flight SQL endpoint's and the terminal's, see sqlengine): it names the
// account the connection logs in as, User from Host. Only code in the
// server's process can make such a connection, after authenticating the
// user itself, so the authentication accepts it without a password; it
// counts as a secure transport, as a Unix socket does in MySQL. The
// account must exist and not be locked.
type InternalAddr struct {
	User string
	Host string
}

var _ net.Addr = InternalAddr{}

// Network implements net.Addr.
func (InternalAddr) Network() string { return "lakesql-internal" }

// String implements net.Addr: host:0, so that the process list and
// host-based account matching see the client's host.
func (a InternalAddr) String() string {
	if a.Host == "" {
		return "internal"
	}
	return net.JoinHostPort(a.Host, "0")
}
