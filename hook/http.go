package hook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/podlife/podlife/internal/httpget"
)

// HTTPOption configures a handler made by [HTTPGet].
type HTTPOption func(*httpGet)

// WithScheme sets the scheme, "HTTP" (the default) or "HTTPS", in any case.
// HTTPS does not verify the server's certificate.
func WithScheme(scheme string) HTTPOption {
	return func(h *httpGet) { h.SetScheme(scheme) }
}

// WithHost sends the request to host (a name or an IP address) instead of the
// target's IP. It does not set the Host header; use WithHeader("Host", ...) for that.
func WithHost(host string) HTTPOption {
	return func(h *httpGet) { h.Host = host }
}

// WithHeader adds a request header; it may be repeated, also for one key.
// A value for "User-Agent" or "Accept" replaces the default; an empty value
// removes the header. A "Host" header sets the request's Host.
func WithHeader(key, value string) HTTPOption {
	return func(h *httpGet) { h.AddHeader(key, value) }
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
// the target nor the handler gives a host. The handler's TargetHost method
// returns the host given with [WithHost] (podlife's Pod Security check reads it).
func HTTPGet(port int, path string, opts ...HTTPOption) Handler {
	h := &httpGet{httpget.NewSpec(port, path)}
	for _, o := range opts {
		o(h)
	}
	return h
}

type httpGet struct{ httpget.Spec }

func (h *httpGet) String() string { return "httpGet " + h.Spec.String() }

// TargetHost is the host given with [WithHost], or empty: the target's IP.
func (h *httpGet) TargetHost() string { return h.Host }

func (h *httpGet) validate() error {
	if h.Port < 1 || h.Port > 65535 {
		return fmt.Errorf("httpGet: port %d must be between 1 and 65535, inclusive", h.Port)
	}
	if h.Scheme != "http" && h.Scheme != "https" {
		return fmt.Errorf("httpGet: unsupported scheme %q: must be HTTP or HTTPS", h.Scheme)
	}
	return nil
}

func (h *httpGet) Run(ctx context.Context, t Target) error {
	if err := h.validate(); err != nil {
		return newError("httpGet", h, t, nil, err)
	}
	host := h.Host
	if host == "" {
		if !t.IP.IsValid() {
			return newError("httpGet", h, t, nil, ErrNoIP)
		}
		host = t.IP.Unmap().String()
	}
	req, err := h.NewRequest(ctx, host, lifecycleUserAgent)
	if err != nil {
		return newError("httpGet", h, t, nil, err)
	}
	err = get(req)
	if isHTTPResponseError(err) {
		// kubelet LifecycleHTTPFallback: the server speaks plain HTTP.
		req := req.Clone(ctx)
		req.URL.Scheme = "http"
		req.Header.Del("Authorization")
		if get(req) == nil {
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

// get sends req and reads at most MaxOutputBytes of the body, which it
// discards. Only a transport error is an error: neither the status code nor
// a failure to read the body is checked, as by the kubelet.
func get(req *http.Request) error {
	resp, err := lifecycleClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = httpget.ReadBody(resp, MaxOutputBytes) // the body does not matter
	return nil
}

// lifecycleClient sends the requests of all HTTP handlers (see
// [httpget.NewClient]): ctx bounds each request.
var lifecycleClient = httpget.NewClient(&net.Dialer{})

// lifecycleUserAgent is the default User-Agent of HTTP handlers.
var lifecycleUserAgent = httpget.UserAgent("podlife-lifecycle")

// isHTTPResponseError reports whether err says that an HTTPS request got a
// plain HTTP answer.
func isHTTPResponseError(err error) bool {
	var uerr *url.Error
	if !errors.As(err, &uerr) {
		return false
	}
	return strings.Contains(uerr.Err.Error(), "server gave HTTP response to HTTPS client")
}
