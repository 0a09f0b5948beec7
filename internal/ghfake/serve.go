package ghfake

import (
	"context"
	"net"
	"net/http"
	"time"
)

// loopback is one HTTP server on a 127.0.0.1 port the kernel picks. The fakes use it instead of
// net/http/httptest so the darwin-memo binary, which links the fake for its demo command, links
// no test support.
type loopback struct {
	URL string
	srv *http.Server
	ln  net.Listener
}

func serveLoopback(h http.Handler) *loopback {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln, err = net.Listen("tcp6", "[::1]:0")
	}
	if err != nil {
		panic("ghfake: cannot listen on a loopback port: " + err.Error())
	}
	l := &loopback{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h}, ln: ln}
	go l.srv.Serve(ln) // returns http.ErrServerClosed after Close
	return l
}

// Close stops the server and waits for the requests it is serving to finish (their exchanges
// reach the observer as handlers return), as httptest.Server.Close does; a handler still busy
// after 10 s is cut off.
func (l *loopback) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if l.srv.Shutdown(ctx) != nil {
		l.srv.Close()
	}
}
