package probe

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
)

func TestResultString(t *testing.T) {
	for r, want := range map[Result]string{Unknown: "unknown", Success: "success", Failure: "failure", Warning: "warning", 9: "Result(9)", -1: "Result(-1)"} {
		if got := r.String(); got != want {
			t.Errorf("Result(%d).String() = %q, want %q", int(r), got, want)
		}
	}
	var zero Result
	if zero != Unknown {
		t.Errorf("zero Result is %v, want unknown", zero)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Startup: "startup", Readiness: "readiness", Liveness: "liveness", 0: "Kind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		p    Prober
		want string
	}{
		{Exec("cat", "/tmp/ready"), "exec [cat /tmp/ready]"},
		{HTTPGet(8080, "/healthz"), "httpGet http://:8080/healthz"},
		{HTTPGet(8080, ""), "httpGet http://:8080/"},
		{HTTPGet(443, "/h", WithScheme("HTTPS"), WithHost("10.0.0.1"), WithHeader("Authorization", "secret")), "httpGet https://10.0.0.1:443/h"},
		{TCPSocket(5432), "tcpSocket :5432"},
		{TCPSocket(5432, WithHost("::1")), "tcpSocket [::1]:5432"},
		{ProberFunc(func(context.Context, hook.Target) (Result, string, error) { return Success, "", nil }), "func"},
		{nil, "<nil>"},
	}
	for _, tt := range tests {
		if got := Describe(tt.p); got != tt.want {
			t.Errorf("Describe = %q, want %q", got, tt.want)
		}
	}
}

func TestProberFunc(t *testing.T) {
	var got hook.Target
	p := ProberFunc(func(_ context.Context, t hook.Target) (Result, string, error) {
		got = t
		return Warning, "meh", nil
	})
	ip := netip.MustParseAddr("10.1.2.3")
	r, msg, err := p.Probe(context.Background(), hook.Target{IP: ip})
	if r != Warning || msg != "meh" || err != nil || got.IP != ip {
		t.Errorf("Probe = %v, %q, %v; target %+v", r, msg, err, got)
	}
}

// waitTimeout is a generous bound for things that should take milliseconds.
const waitTimeout = 5 * time.Second
