package hook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// HTTPOption configures a handler made by [HTTPGet].
type HTTPOption func(*httpGet)

// WithScheme sets the scheme, "HTTP" (the default) or "HTTPS", in any case.
// HTTPS does not verify the server's certificate.
func WithScheme(scheme string) HTTPOption {
	return func(h *httpGet) { h.scheme = strings.ToLower(scheme) }
}

// WithHost sends the request to host (a name or an IP address) instead of the
// target's IP. It does not set the Host header; use WithHeader("Host", ...) for that.
func WithHost(host string) HTTPOption {
	return func(h *httpGet) { h.host = host }
}

// WithHeader adds a request header; it may be repeated, also for one key.
// A value for "User-Agent" or "Accept" replaces the default; an empty value
// removes the header. A "Host" header sets the request's Host.
func WithHeader(key, value string) HTTPOption {
	return func(h *httpGet) { h.header.Add(key, value) }
}

// HTTPGet returns a handler that sends GET scheme://host:port/path from the
// host's network namespace, where host is the target's IP unless [WithHost]
// names another, and path defaults to "/". It follows the kubelet:
//
//   - The default headers are "User-Agent: podlife-lifecycle/<version>" and
//     "Accept: */*" (see [WithHeader] to replace or remove them).
//   - There is no client timeout: ctx bounds the request.
//   - The status code is not checked: only transport errors (connection
//     refused or reset, TLS errors, ctx ending) fail the handler. Connection
//     refused is not retried.
//   - Redirects are followed only to the same host name, at most 10; a redirect
//     to another host ends the request successfully without following it.
//   - At most [MaxOutputBytes] of the body are read, then it is discarded.
//   - If an HTTPS request gets a plain HTTP answer, the request is retried over
//     HTTP without the Authorization header. If the retry succeeds, the
//     handler succeeds and calls [Target.Warn] with
//     [ReasonLifecycleHTTPFallback]; otherwise it fails with the first error.
//   - Proxy settings from the environment are ignored.
//
// Failures are reported as [*Error], with [ErrNoIP] as the cause when neither
// the target nor the handler gives a host.
func HTTPGet(port int, path string, opts ...HTTPOption) Handler {
	h := &httpGet{port: port, path: path, scheme: "http", header: http.Header{}}
	if h.path == "" {
		h.path = "/"
	}
	for _, o := range opts {
		o(h)
	}
	if h.scheme == "" {
		h.scheme = "http"
	}
	return h
}

type httpGet struct {
	port   int
	path   string
	scheme string // lower case
	host   string
	header http.Header
}

func (h *httpGet) String() string {
	u := buildURL(h.scheme, h.host, h.port, h.path)
	return "httpGet " + u.String()
}

func (h *httpGet) validate() error {
	if h.port < 1 || h.port > 65535 {
		return fmt.Errorf("httpGet: port %d must be between 1 and 65535, inclusive", h.port)
	}
	if h.scheme != "http" && h.scheme != "https" {
		return fmt.Errorf("httpGet: unsupported scheme %q: must be HTTP or HTTPS", h.scheme)
	}
	return nil
}

func (h *httpGet) Run(ctx context.Context, t Target) error {
	if err := h.validate(); err != nil {
		return newError("httpGet", h, t, nil, err)
	}
	host := h.host
	if host == "" {
		if !t.IP.IsValid() {
			return newError("httpGet", h, t, nil, ErrNoIP)
		}
		host = t.IP.Unmap().String()
	}
	req, err := newRequest(ctx, buildURL(h.scheme, host, h.port, h.path), h.header, lifecycleUserAgent)
	if err != nil {
		return newError("httpGet", h, t, nil, err)
	}
	resp, err := lifecycleClient.Do(req)
	discardBody(resp)
	if isHTTPResponseError(err) {
		// kubelet LifecycleHTTPFallback: the server speaks plain HTTP.
		req := req.Clone(ctx)
		req.URL.Scheme = "http"
		req.Header.Del("Authorization")
		resp, httpErr := lifecycleClient.Do(req)
		discardBody(resp)
		if httpErr == nil {
			if t.Warn != nil {
				t.Warn(ReasonLifecycleHTTPFallback, fmt.Sprintf(
					"request to HTTPS lifecycle hook %s got HTTP response, retry with HTTP succeeded", req.URL.Host))
			}
			return nil
		}
	}
	if err != nil {
		return newError("httpGet", h, t, nil, err)
	}
	return nil
}

// lifecycleClient has no timeout (ctx governs), verifies no certificates,
// ignores proxies and keeps no idle connections to pods that may go away.
var lifecycleClient = &http.Client{
	Transport: &http.Transport{
		Proxy:              nil,
		DialContext:        (&net.Dialer{}).DialContext,
		TLSClientConfig:    &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // as the kubelet
		DisableKeepAlives:  true,
		DisableCompression: true,
	},
	CheckRedirect: sameHostRedirects,
}

// sameHostRedirects follows redirects to the same host name only, at most 10.
// A redirect elsewhere returns the redirect response itself.
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	if req.URL.Hostname() != via[0].URL.Hostname() {
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// buildURL builds scheme://host:port/path; a path that does not parse is
// used verbatim (as the kubelet does).
func buildURL(scheme, host string, port int, path string) *url.URL {
	u, err := url.Parse(path)
	if err != nil {
		u = &url.URL{Path: path}
	}
	u.Scheme = scheme
	u.Host = net.JoinHostPort(host, strconv.Itoa(port))
	return u
}

// newRequest builds the GET request with the kubelet's header rules.
func newRequest(ctx context.Context, u *url.URL, header http.Header, userAgent string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	h := header.Clone()
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

// discardBody reads at most MaxOutputBytes of the body and closes it.
func discardBody(resp *http.Response) {
	if resp == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxOutputBytes))
	_ = resp.Body.Close()
}

// isHTTPResponseError reports whether err says that an HTTPS request got a
// plain HTTP answer.
func isHTTPResponseError(err error) bool {
	var uerr *url.Error
	if !errors.As(err, &uerr) {
		return false
	}
	return strings.Contains(uerr.Err.Error(), "server gave HTTP response to HTTPS client")
}
