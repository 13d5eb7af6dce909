package httpget

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
)

// MaxRedirects is the number of redirects that a client made by [NewClient]
// follows before it gives up with [ErrTooManyRedirects].
const MaxRedirects = 10

// ErrTooManyRedirects is the cause of the error that a client made by
// [NewClient] returns when a request is redirected more than [MaxRedirects]
// times.
var ErrTooManyRedirects = fmt.Errorf("stopped after %d redirects", MaxRedirects)

// NewClient returns a client for lifecycle hooks and probes. It opens its
// connections with dialer, and as the kubelet's clients it
//
//   - has no timeout: the request's context bounds the request, body
//     included;
//   - ignores the proxy settings of the environment;
//   - keeps no connection alive, since pods come and go;
//   - asks for no compressed responses;
//   - does not verify the certificates of HTTPS servers;
//   - follows redirects as [CheckRedirect] says.
func NewClient(dialer *net.Dialer) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:              nil,
			DialContext:        dialer.DialContext,
			TLSClientConfig:    &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // as the kubelet
			DisableKeepAlives:  true,
			DisableCompression: true,
		},
		CheckRedirect: CheckRedirect,
	}
}

// CheckRedirect is the redirect policy of the clients made by [NewClient], to
// be used as [http.Client.CheckRedirect]. It follows a redirect to the same
// host name as the first request's, whatever the port or scheme, at most
// [MaxRedirects] times, and then fails with [ErrTooManyRedirects]. It does not
// follow a redirect to another host: the client then returns the redirect
// response itself, without an error.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if req.URL.Hostname() != via[0].URL.Hostname() {
		return http.ErrUseLastResponse
	}
	if len(via) >= MaxRedirects {
		return ErrTooManyRedirects
	}
	return nil
}

// ReadBody reads at most limit bytes of resp's body and closes it. The rest
// of a longer body is not read, which is not an error. The error is the one
// of the read, returned as is: callers quote it as the kubelet does.
func ReadBody(resp *http.Response, limit int64) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, limit))
}
