package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/httpget"
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
// cancelled ctx are prober errors. The prober's TargetHost method returns the
// host given with [WithHost] (podlife's Pod Security check reads it).
func HTTPGet(port int, path string, opts ...HTTPOption) Prober {
	p := &httpGet{httpget.NewSpec(port, path)}
	for _, o := range opts {
		o.applyHTTP(p)
	}
	return p
}

type httpGet struct{ httpget.Spec }

func (p *httpGet) String() string { return "httpGet " + p.Spec.String() }

// TargetHost is the host given with [WithHost], or empty: the target's IP.
func (p *httpGet) TargetHost() string { return p.Host }

func (p *httpGet) validate() []error {
	var errs []error
	if err := validatePort("httpGet.port", p.Port); err != nil {
		errs = append(errs, err)
	}
	if p.Scheme != "http" && p.Scheme != "https" {
		errs = append(errs, &FieldError{Field: "httpGet.scheme", Value: p.Scheme, Detail: `supported values: "HTTP", "HTTPS"`})
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
	host, err := targetHost(p.Host, t)
	if err != nil {
		return Unknown, "", err
	}
	req, err := p.NewRequest(ctx, host, probeUserAgent)
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
	b, err := httpget.ReadBody(resp, hook.MaxOutputBytes)
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

// probeClient sends the requests of all HTTP probers (see
// [httpget.NewClient]); its sockets linger briefly (see probeDialer).
var probeClient = httpget.NewClient(probeDialer())

// probeUserAgent is the default User-Agent of HTTP probes.
var probeUserAgent = httpget.UserAgent("podlife-probe")
