package httpget

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Spec is the httpGet action of a lifecycle handler or a probe, as a pod spec
// gives it: what to request, before it is known from which target.
type Spec struct {
	// Scheme is "http" or "https", in lower case; see [Spec.SetScheme].
	Scheme string
	// Host is the host name or IP address to send the request to; empty
	// means the target's IP address.
	Host string
	// Port is the TCP port.
	Port int
	// Path is the path and query of the request, such as "/healthz?v=1".
	Path string
	// Header holds the headers given in the spec; see [Spec.NewRequest] for
	// how they combine with the default ones. It may be nil.
	Header http.Header
}

// NewSpec returns the Spec of GET http://:port/path. An empty path is "/".
func NewSpec(port int, path string) Spec {
	if path == "" {
		path = "/"
	}
	return Spec{Scheme: "http", Port: port, Path: path}
}

// SetScheme sets the scheme, given in any case; an empty scheme is "http".
func (s *Spec) SetScheme(scheme string) {
	s.Scheme = strings.ToLower(scheme)
	if s.Scheme == "" {
		s.Scheme = "http"
	}
}

// AddHeader adds a header value; it may be called more than once for a key.
func (s *Spec) AddHeader(key, value string) {
	if s.Header == nil {
		s.Header = http.Header{}
	}
	s.Header.Add(key, value)
}

// String returns the URL with s.Host as the host, empty if that is, such as
// "http://:8080/healthz". It never includes header values.
func (s *Spec) String() string { return s.URL(s.Host).String() }

// URL returns scheme://host:port/path. A path that does not parse as a URL
// reference is used verbatim as the URL's path, as the kubelet does.
func (s *Spec) URL(host string) *url.URL {
	u, err := url.Parse(s.Path)
	if err != nil {
		u = &url.URL{Path: s.Path}
	}
	u.Scheme = s.Scheme
	u.Host = net.JoinHostPort(host, strconv.Itoa(s.Port))
	return u
}

// NewRequest returns the GET request of s to host (s.Host, or else the
// target's IP address), bounded by ctx, with the kubelet's header rules. The
// request
// carries a copy of s.Header, and then:
//
//   - "User-Agent" is userAgent unless s.Header has the key; an empty value
//     sends no User-Agent.
//   - "Accept" is "*/*" unless s.Header has the key; an empty value sends no
//     Accept header.
//   - A "Host" header sets the request's Host; without one, the Host is the
//     host and port of the URL.
//
// The error is the one of [http.NewRequestWithContext], returned as is.
func (s *Spec) NewRequest(ctx context.Context, host, userAgent string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL(host).String(), nil)
	if err != nil {
		return nil, err
	}
	h := s.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if _, ok := h["User-Agent"]; !ok {
		h.Set("User-Agent", userAgent)
	}
	if _, ok := h["Accept"]; !ok {
		h.Set("Accept", "*/*")
	} else if h.Get("Accept") == "" {
		h.Del("Accept")
	}
	req.Header = h
	req.Host = h.Get("Host")
	return req, nil
}
