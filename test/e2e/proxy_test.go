//go:build e2e && chaos

package e2e

import (
	"net"
	"sync"

	. "github.com/onsi/gomega"
)

// cutProxy forwards TCP connections from a loopback port to an address
// until it is cut. Cut, it delivers nothing either way and keeps every
// connection open, new ones too, as a network that drops every packet
// does: requests time out rather than fail fast. Healed, it closes the
// connections the cut broke, and forwards new ones again.
type cutProxy struct {
	listener net.Listener
	target   string

	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

// startCutProxy forwards a new loopback port to target.
func startCutProxy(target string) *cutProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	p := &cutProxy{listener: l, target: target}
	go p.serve()
	return p
}

// address is where clients reach target through the proxy.
func (p *cutProxy) address() string {
	return p.listener.Addr().String()
}

func (p *cutProxy) serve() {
	for {
		conn, err := p.listener.Accept()
		if err != nil {
			return
		}
		go p.forward(conn)
	}
}

func (p *cutProxy) forward(downstream net.Conn) {
	p.track(downstream)
	if p.isCut() {
		p.pipe(nil, downstream)
		return
	}
	upstream, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = downstream.Close()
		return
	}
	p.track(upstream)
	go p.pipe(upstream, downstream)
	p.pipe(downstream, upstream)
}

// pipe copies what src sends to dst, and drops it while the proxy is cut.
// When src ends it closes dst, unless the proxy is cut: then the other end
// hears nothing of it.
func (p *cutProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && dst != nil && !p.isCut() {
			if _, err := dst.Write(buf[:n]); err != nil {
				_ = src.Close()
				return
			}
		}
		if err != nil {
			if dst != nil && !p.isCut() {
				_ = dst.Close()
			}
			return
		}
	}
}

func (p *cutProxy) track(conn net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, conn)
}

func (p *cutProxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

// cutOff stops delivering anything.
func (p *cutProxy) cutOff() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
}

// heal closes every connection the cut broke and forwards again.
func (p *cutProxy) heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeConns()
	p.cut = false
}

// close stops the proxy and closes its connections.
func (p *cutProxy) close() {
	_ = p.listener.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeConns()
}

func (p *cutProxy) closeConns() {
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}
