package probe

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

	"github.com/podlife/podlife/hook"
)

// HTTPGet returns a prober that sends GET scheme://host:port/path from the
// host's network namespace, where host is the target's IP unless [WithHost]
// names another, and path defaults to "/". It follows the kubelet:
//
//   - The default headers are "User-Agent: podlife-probe/<version>" and
//     "Accept: */*" (see [WithHeader] to replace or remove them). Connections
//     are not kept alive, responses are not compressed, proxies from the
//     environment are ignored and HTTPS certificates are not verified.
//   - ctx bounds the whole request, body included.
//   - 200 <= status < 400 is Success, with the body as the message.
//     Any other status is Failure with the message
//     "HTTP probe failed with statuscode: N" (the body is left out).
//   - Redirects to the same host name are followed, at most 10 (more is a
//     Failure). A redirect to another host is not followed: the 3xx response
//     gives Warning with the message
//     "Probe terminated redirects, Response body: <body>".
//   - At most [hook.MaxOutputBytes] of the body are read; a longer body is
//     truncated, which is not an error.
//   - A transport error (connection refused, timeout, TLS) is Failure with the
//     error text as the message.
//
// A Target without an IP when no host is given ([hook.ErrNoIP]) and a
// cancelled ctx are prober errors.
func HTTPGet(port int, path string, opts ...HTTPOption) Prober {
	p := &httpGet{port: port, path: path, scheme: "http"}
	if p.path == "" {
		p.path = "/"
	}
	for _, o := range opts {
		o.applyHTTP(p)
	}
	if p.scheme == "" {
		p.scheme = "http"
	}
	return p
}

type httpGet struct {
	port   int
	path   string
	scheme string // lower case
	host   string
	header http.Header
}

func (p *httpGet) String() string {
	return "httpGet " + buildURL(p.scheme, p.host, p.port, p.path).String()
}

func (p *httpGet) validate() []error {
	var errs []error
	if err := validatePort("httpGet.port", p.port); err != nil {
		errs = append(errs, err)
	}
	if p.scheme != "http" && p.scheme != "https" {
		errs = append(errs, &FieldError{Field: "httpGet.scheme", Value: p.scheme, Detail: `supported values: "HTTP", "HTTPS"`})
	}
	return errs
}

func validatePort(field string, port int) error {
	if port < 1 || port > 65535 {
		return &FieldError{Field: field, Value: port, Detail: "must be between 1 and 65535, inclusive"}
	}
	return nil
}

func (p *httpGet) Probe(ctx context.Context, t hook.Target) (Result, string, error) {
	if err := firstError(p); err != nil {
		return Unknown, "", err
	}
	host, err := targetHost(p.host, t)
	if err != nil {
		return Unknown, "", err
	}
	req, err := newRequest(ctx, buildURL(p.scheme, host, p.port, p.path), p.header, probeUserAgent)
	if err != nil {
		return Unknown, "", err
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		if cancelled(ctx) {
			return Unknown, "", err
		}
		return Failure, err.Error(), nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, hook.MaxOutputBytes))
	if err != nil {
		if cancelled(ctx) {
			return Unknown, "", err
		}
		return Failure, err.Error(), nil
	}
	body := string(b)
	if resp.StatusCode >= http.StatusOK && resp.StatusCode < http.StatusBadRequest {
		if resp.StatusCode >= http.StatusMultipleChoices {
			return Warning, "Probe terminated redirects, Response body: " + body, nil
		}
		return Success, body, nil
	}
	return Failure, fmt.Sprintf("HTTP probe failed with statuscode: %d", resp.StatusCode), nil
}

// targetHost returns host, or else the target's IP.
func targetHost(host string, t hook.Target) (string, error) {
	if host != "" {
		return host, nil
	}
	if !t.IP.IsValid() {
		return "", hook.ErrNoIP
	}
	return t.IP.Unmap().String(), nil
}

// cancelled reports whether ctx was cancelled for another reason than its
// deadline: the probe's result then means nothing.
func cancelled(ctx context.Context) bool {
	err := ctx.Err()
	return err != nil && !errors.Is(err, context.DeadlineExceeded)
}

// probeClient: no keep-alive, no proxy, no compression, no TLS verification,
// same-host redirects only; ctx bounds each request.
var probeClient = &http.Client{
	Transport: &http.Transport{
		Proxy:              nil,
		DialContext:        probeDialer().DialContext,
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
