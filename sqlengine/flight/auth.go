package flight

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"net"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/lakesql/lakesql/sqlengine"
	"github.com/lakesql/lakesql/sqlengine/access"
)

// Authentication, as Flight SQL clients (ADBC, the JDBC driver, arrow-go's
// client) do it: a Handshake with "authorization: Basic base64(user:pass)"
// is checked against lakesql's accounts (the same users, passwords and
// host matching as the MySQL protocol) and answered with a bearer token
// ("authorization: Bearer …" in the response headers); every later call
// carries it. A call without any authorization runs as root with an empty
// password, which the accounts accept only where MySQL would (root without
// a password, from a loopback address). Tokens expire after sessionIdle
// without use.

const (
	authHeader   = "authorization"
	basicPrefix  = "Basic "
	bearerPrefix = "Bearer "
	sessionIdle  = time.Hour
)

type sessionKey struct{}

// sessions holds the authenticated sessions by bearer token.
type sessions struct {
	mu sync.Mutex
	m  map[string]*session
}

func (ss *sessions) get(token string) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.m[token]
	if s == nil {
		return nil
	}
	if time.Since(s.lastUsed) > sessionIdle {
		delete(ss.m, token)
		go s.close()
		return nil
	}
	s.lastUsed = time.Now()
	return s
}

func (ss *sessions) put(s *session) string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = map[string]*session{}
	}
	for t, old := range ss.m { // sweep expired sessions
		if time.Since(old.lastUsed) > sessionIdle {
			delete(ss.m, t)
			go old.close()
		}
	}
	ss.m[token] = s
	return token
}

func (ss *sessions) closeAll() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for t, s := range ss.m {
		delete(ss.m, t)
		s.close()
	}
}

// clientHost is the host of the peer of ctx and whether the transport is
// TLS.
func clientHost(ctx context.Context) (string, bool) {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return "", false
	}
	_, secure := p.AuthInfo.(credentials.TLSInfo)
	host, _, err := net.SplitHostPort(p.Addr.String())
	if err != nil {
		return p.Addr.String(), secure
	}
	return host, secure
}

// login authenticates user/password from the peer of ctx and opens a
// session.
func (s *Server) login(ctx context.Context, user, password string) (*session, error) {
	host, secure := clientHost(ctx)
	acct, err := s.eng.Authenticator().CheckPassword(user, password, access.InternalAddr{User: user, Host: host}, secure)
	if err != nil {
		return nil, status.Error(codes.Unauthenticated, err.Error())
	}
	return s.newSession(sqlengine.Account{User: acct.User, AccountHost: acct.Host, ClientHost: host})
}

// authenticate finds the session of a call: its bearer token, or an
// anonymous root login.
func (s *Server) authenticate(ctx context.Context) (context.Context, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	auth := ""
	if v := md.Get(authHeader); len(v) > 0 {
		auth = strings.TrimSpace(v[0])
	}
	switch {
	case auth == "":
		key := "anonymous:" + func() string { h, _ := clientHost(ctx); return h }()
		if ses := s.sessions.get(key); ses != nil {
			return context.WithValue(ctx, sessionKey{}, ses), nil
		}
		ses, err := s.login(ctx, "root", "")
		if err != nil {
			return nil, status.Error(codes.Unauthenticated, "authenticate with a user and password (Basic auth): "+err.Error())
		}
		s.sessions.mu.Lock()
		if s.sessions.m == nil {
			s.sessions.m = map[string]*session{}
		}
		s.sessions.m[key] = ses
		s.sessions.mu.Unlock()
		return context.WithValue(ctx, sessionKey{}, ses), nil
	case len(auth) > len(bearerPrefix) && strings.EqualFold(auth[:len(bearerPrefix)], bearerPrefix):
		ses := s.sessions.get(strings.TrimSpace(auth[len(bearerPrefix):]))
		if ses == nil {
			return nil, status.Error(codes.Unauthenticated, "unknown or expired token: authenticate again")
		}
		return context.WithValue(ctx, sessionKey{}, ses), nil
	case len(auth) > len(basicPrefix) && strings.EqualFold(auth[:len(basicPrefix)], basicPrefix):
		// Basic credentials on any call (clients that never hand-shake).
		user, pass, err := decodeBasic(auth[len(basicPrefix):])
		if err != nil {
			return nil, err
		}
		ses, err := s.login(ctx, user, pass)
		if err != nil {
			return nil, err
		}
		return context.WithValue(ctx, sessionKey{}, ses), nil
	}
	return nil, status.Error(codes.Unauthenticated, "authorization must be Basic or Bearer")
}

func decodeBasic(cred string) (user, pass string, err error) {
	cred = strings.TrimSpace(cred)
	b, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(cred); err != nil {
			return "", "", status.Error(codes.Unauthenticated, "invalid basic auth encoding")
		}
	}
	user, pass, ok := strings.Cut(string(b), ":")
	if !ok {
		return "", "", status.Error(codes.Unauthenticated, "invalid basic auth credentials")
	}
	return user, pass, nil
}

func sessionFrom(ctx context.Context) (*session, error) {
	s, ok := ctx.Value(sessionKey{}).(*session)
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "not authenticated")
	}
	return s, nil
}

// handshake answers a Handshake with Basic credentials: the bearer token
// goes back in the response header (and trailer, for older clients).
func (s *Server) handshake(stream grpc.ServerStream) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	auth := ""
	if v := md.Get(authHeader); len(v) > 0 {
		auth = strings.TrimSpace(v[0])
	}
	user, pass := "root", ""
	if auth != "" {
		if len(auth) <= len(basicPrefix) || !strings.EqualFold(auth[:len(basicPrefix)], basicPrefix) {
			return status.Error(codes.Unauthenticated, "the handshake takes Basic credentials")
		}
		var err error
		if user, pass, err = decodeBasic(auth[len(basicPrefix):]); err != nil {
			return err
		}
	}
	ses, err := s.login(stream.Context(), user, pass)
	if err != nil {
		return err
	}
	token := s.sessions.put(ses)
	hdr := metadata.Pairs(authHeader, bearerPrefix+token)
	if err := stream.SetHeader(hdr); err != nil {
		return err
	}
	stream.SetTrailer(hdr)
	return nil
}

func (s *Server) streamInterceptor(srv any, stream grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if strings.HasSuffix(info.FullMethod, "/Handshake") {
		return s.handshake(stream)
	}
	ctx, err := s.authenticate(stream.Context())
	if err != nil {
		return err
	}
	return handler(srv, &ctxStream{ServerStream: stream, ctx: ctx})
}

func (s *Server) unaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, err := s.authenticate(ctx)
	if err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c *ctxStream) Context() context.Context { return c.ctx }
