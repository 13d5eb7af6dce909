package probe

// HTTPOption configures a prober made by [HTTPGet].
type HTTPOption interface{ applyHTTP(*httpGet) }

// TCPOption configures a prober made by [TCPSocket].
type TCPOption interface{ applyTCP(*tcpSocket) }

type httpOptionFunc func(*httpGet)

func (f httpOptionFunc) applyHTTP(p *httpGet) { f(p) }

// HostOption is the option made by [WithHost]; it works with both [HTTPGet]
// and [TCPSocket].
type HostOption struct{ host string }

func (o HostOption) applyHTTP(p *httpGet)  { p.Host = o.host }
func (o HostOption) applyTCP(p *tcpSocket) { p.host = o.host }

// WithHost probes host (a name or an IP address) instead of the target's IP.
// For HTTPGet it does not set the Host header; use WithHeader("Host", ...).
func WithHost(host string) HostOption { return HostOption{host: host} }

// WithScheme sets the HTTP scheme, "HTTP" (the default) or "HTTPS", in any
// case. HTTPS does not verify the server's certificate.
func WithScheme(scheme string) HTTPOption {
	return httpOptionFunc(func(p *httpGet) { p.SetScheme(scheme) })
}

// WithHeader adds a request header; it may be repeated, also for one key.
// A value for "User-Agent" or "Accept" replaces the default; an empty value
// removes the header. A "Host" header sets the request's Host.
func WithHeader(key, value string) HTTPOption {
	return httpOptionFunc(func(p *httpGet) { p.AddHeader(key, value) })
}
