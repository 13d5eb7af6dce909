package hook

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"
)

func TestDescribe(t *testing.T) {
	tests := []struct {
		h    Handler
		want string
	}{
		{Exec("sh", "-c", "echo hi"), "exec [sh -c echo hi]"},
		{HTTPGet(8080, "/x"), "httpGet http://:8080/x"},
		{HTTPGet(8080, ""), "httpGet http://:8080/"},
		{HTTPGet(8443, "/h?a=b", WithScheme("HTTPS"), WithHost("example.com"), WithHeader("Authorization", "secret")),
			"httpGet https://example.com:8443/h?a=b"},
		{Sleep(5 * time.Second), "sleep 5s"},
		{Sleep(0), "sleep 0s"},
		{HandlerFunc(func(context.Context, Target) error { return nil }), "func"},
		{nil, "<nil>"},
	}
	for _, tt := range tests {
		if got := Describe(tt.h); got != tt.want {
			t.Errorf("Describe = %q, want %q", got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		h       Handler
		wantErr string
	}{
		{"exec ok", Exec("true"), ""},
		{"exec empty", Exec(), "exec: command must not be empty"},
		{"http ok", HTTPGet(1, "/"), ""},
		{"http port 0", HTTPGet(0, "/"), "httpGet: port 0 must be between 1 and 65535, inclusive"},
		{"http port big", HTTPGet(65536, "/"), "httpGet: port 65536 must be between 1 and 65535, inclusive"},
		{"http scheme", HTTPGet(80, "/", WithScheme("ftp")), `httpGet: unsupported scheme "ftp": must be HTTP or HTTPS`},
		{"http scheme case", HTTPGet(80, "/", WithScheme("hTTpS")), ""},
		{"sleep 0", Sleep(0), ""},
		{"sleep negative", Sleep(-time.Second), "sleep: duration -1s must not be negative"},
		{"func", HandlerFunc(func(context.Context, Target) error { return nil }), ""},
		{"nil", nil, "no handler"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.h)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("Validate = %q, want %q", got, tt.wantErr)
			}
			if err != nil && tt.h != nil {
				// Run fails the same way, without doing anything.
				runErr := tt.h.Run(context.Background(), Target{IP: netip.MustParseAddr("127.0.0.1")})
				var he *Error
				if !errors.As(runErr, &he) || he.Err.Error() != tt.wantErr {
					t.Errorf("Run = %v, want *Error with cause %q", runErr, tt.wantErr)
				}
			}
		})
	}
}

func TestHandlerFunc(t *testing.T) {
	want := errors.New("boom")
	var got Target
	h := HandlerFunc(func(_ context.Context, t Target) error { got = t; return want })
	tgt := Target{Pod: "p", Container: "c"}
	if err := h.Run(context.Background(), tgt); err != want {
		t.Fatalf("Run = %v, want the function's error unchanged", err)
	}
	if got.Pod != "p" || got.Container != "c" {
		t.Errorf("function saw target %+v", got)
	}
}

func TestErrorMessage(t *testing.T) {
	e := &Error{Kind: "httpGet", Handler: "httpGet http://:80/", Err: errors.New("dial failed")}
	if got, want := e.Error(), "lifecycle hook httpGet http://:80/ failed: dial failed"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
