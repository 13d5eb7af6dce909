package probe

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
)

func dur(d time.Duration) *time.Duration { return &d }

func TestWithDefaults(t *testing.T) {
	p := TCPSocket(80)
	got := Spec{Prober: p}.WithDefaults()
	want := Spec{Prober: p, Period: 10 * time.Second, Timeout: time.Second, SuccessThreshold: 1, FailureThreshold: 3}
	if got != want {
		t.Errorf("WithDefaults = %+v, want %+v", got, want)
	}
	set := Spec{Prober: p, InitialDelay: 2 * time.Second, Period: 500 * time.Millisecond, Timeout: 3 * time.Second,
		SuccessThreshold: 2, FailureThreshold: 5}
	if got := set.WithDefaults(); got != set {
		t.Errorf("WithDefaults changed set fields: %+v", got)
	}
	neg := Spec{Period: -1, Timeout: -1, SuccessThreshold: -1, FailureThreshold: -1}
	if got := neg.WithDefaults(); got != neg {
		t.Errorf("WithDefaults changed negative fields: %+v", got)
	}
}

func TestValidate(t *testing.T) {
	p := TCPSocket(80)
	tests := []struct {
		name string
		s    Spec
		kind Kind
		want []string // the FieldError messages, in order
	}{
		{"zero spec with prober", Spec{Prober: p}, Liveness, nil},
		{"readiness success 3", Spec{Prober: p, SuccessThreshold: 3}, Readiness, nil},
		{"liveness grace", Spec{Prober: p, TerminationGracePeriod: dur(5 * time.Second)}, Liveness, nil},
		{"no prober", Spec{}, Startup, []string{"handler: Required value: must specify a handler type"}},
		{"negative durations", Spec{Prober: p, InitialDelay: -time.Second, Period: -2 * time.Second, Timeout: -time.Millisecond}, Readiness, []string{
			"initialDelaySeconds: Invalid value: -1s: must be greater than or equal to 0",
			"periodSeconds: Invalid value: -2s: must be greater than or equal to 0",
			"timeoutSeconds: Invalid value: -1ms: must be greater than or equal to 0",
		}},
		{"negative thresholds", Spec{Prober: p, SuccessThreshold: -1, FailureThreshold: -3}, Readiness, []string{
			"successThreshold: Invalid value: -1: must be greater than or equal to 0",
			"failureThreshold: Invalid value: -3: must be greater than or equal to 0",
		}},
		{"liveness success 2", Spec{Prober: p, SuccessThreshold: 2}, Liveness, []string{"successThreshold: Invalid value: 2: must be 1"}},
		{"startup success 2", Spec{Prober: p, SuccessThreshold: 2}, Startup, []string{"successThreshold: Invalid value: 2: must be 1"}},
		{"readiness grace", Spec{Prober: p, TerminationGracePeriod: dur(time.Second)}, Readiness, []string{
			"terminationGracePeriodSeconds: Invalid value: 1s: must not be set for readinessProbes"}},
		{"zero grace", Spec{Prober: p, TerminationGracePeriod: dur(0)}, Startup, []string{
			"terminationGracePeriodSeconds: Invalid value: 0s: must be greater than 0"}},
		{"bad probers", Spec{Prober: HTTPGet(70000, "/", WithScheme("ftp"))}, Liveness, []string{
			"httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive",
			`httpGet.scheme: Invalid value: ftp: supported values: "HTTP", "HTTPS"`,
		}},
		{"bad tcp", Spec{Prober: TCPSocket(-1)}, Liveness, []string{"tcpSocket.port: Invalid value: -1: must be between 1 and 65535, inclusive"}},
		{"bad exec", Spec{Prober: Exec()}, Liveness, []string{"exec.command: Required value: must specify a command"}},
		{"func prober", Spec{Prober: ProberFunc(func(context.Context, hook.Target) (Result, string, error) { return Success, "", nil })}, Liveness, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate(tt.kind)
			var got []string
			if err != nil {
				joined, ok := err.(interface{ Unwrap() []error })
				if !ok {
					t.Fatalf("Validate = %v (%T), want joined errors", err, err)
				}
				for _, e := range joined.Unwrap() {
					var fe *FieldError
					if !errors.As(e, &fe) {
						t.Errorf("error %v (%T) is not a *FieldError", e, e)
					}
					got = append(got, e.Error())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Validate =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestValidateUnknownKind(t *testing.T) {
	err := Spec{Prober: TCPSocket(80)}.Validate(0)
	if err == nil || err.Error() != "probe: unknown kind Kind(0)" {
		t.Errorf("Validate(0) = %v", err)
	}
}

func TestSpecRunTimeout(t *testing.T) {
	var remaining []time.Duration
	p := ProberFunc(func(ctx context.Context, _ hook.Target) (Result, string, error) {
		dl, ok := ctx.Deadline()
		if !ok {
			return Unknown, "", errors.New("no deadline")
		}
		remaining = append(remaining, time.Until(dl))
		return Success, "", nil
	})
	for _, s := range []Spec{{Prober: p}, {Prober: p, Timeout: 3 * time.Second}} {
		if r, _, err := s.Run(context.Background(), hook.Target{}); r != Success || err != nil {
			t.Fatalf("Run = %v, %v", r, err)
		}
	}
	if len(remaining) != 2 ||
		remaining[0] <= 500*time.Millisecond || remaining[0] > time.Second ||
		remaining[1] <= 2500*time.Millisecond || remaining[1] > 3*time.Second {
		t.Errorf("deadlines %v, want about 1s and 3s", remaining)
	}
}

func TestSpecRunExecTimeout(t *testing.T) {
	s := Spec{Prober: Exec("sleep", "5"), Timeout: 50 * time.Millisecond}
	r, msg, err := s.Run(context.Background(), hook.Target{Exec: &fakeExecer{block: true}})
	if r != Failure || err != nil || msg != `command "sleep 5" timed out` {
		t.Errorf("Run = %v, %q, %v", r, msg, err)
	}
}

func TestSpecRunNoProber(t *testing.T) {
	if r, _, err := (Spec{}).Run(context.Background(), hook.Target{}); r != Unknown || err == nil {
		t.Errorf("Run = %v, %v; want unknown and an error", r, err)
	}
}
