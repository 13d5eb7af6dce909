package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// testChecks stand for package podlife's checks: a condition of a known status whose type is
// not Ready and has at most one slash, a positive deadline.
var testChecks = Checks{
	Condition: func(_ string, t api.ConditionType, s api.ConditionStatus) error {
		if t == "" || t == "Ready" || strings.Count(string(t), "/") > 1 ||
			(s != api.ConditionTrue && s != api.ConditionFalse && s != api.ConditionUnknown) {
			return errors.New("invalid condition")
		}
		return nil
	},
	Deadline: func(_ string, d time.Duration) error {
		if d <= 0 {
			return errors.New("invalid deadline")
		}
		return nil
	},
}

// FuzzControlRequest: the control request parser never panics, accepts only a known op, a valid
// pod name and a grace period that is not negative, and what it accepts reads back the same once
// encoded as a client encodes it. readRequest agrees with it on a line within the cap.
func FuzzControlRequest(f *testing.F) {
	for _, seed := range []string{
		`{"op":"stop","pod":"web"}`,
		`{"op":"remove","pod":"web","grace":5000000000}`,
		`{"op":"stop","pod":"web","grace":-1}`,
		`{"op":"stop","pod":"../../x"}`,
		`{"op":"exec","pod":"web"}`,
		`{"op":"stop","pod":"web","x":1}`,
		`{"op":"stop","pod":"web"}{"op":"remove","pod":"web"}`,
		`{"op":"stop","pod":"web"} [`,
		`{"op":"stop","pod":"web","grace":1e400}`,
		`{"op":"stop","pod":"web\u0000"}`,
		`{"op":"condition","pod":"web","condition":{"type":"example.com/lb","status":"True","reason":"Up"}}`,
		`{"op":"condition","pod":"web"}`,
		`{"op":"condition","pod":"web","condition":{"type":"Ready","status":"True"}}`,
		`{"op":"condition","pod":"web","condition":{"type":"a/b/c","status":"True"}}`,
		`{"op":"condition","pod":"web","condition":{"type":"x","status":"yes"}}`,
		`{"op":"ephemeral","pod":"web","ephemeral":{"name":"debugger","image":"busybox","command":["sh"],"args":null,"env":[{"Name":"A","Value":"b"}],"targetContainerName":"app"}}`,
		`{"op":"ephemeral","pod":"web"}`,
		`{"op":"ephemeral","pod":"web","ephemeral":{"name":"../x","image":"busybox"}}`,
		`{"op":"ephemeral","pod":"web","ephemeral":{"name":"d","image":""}}`,
		`{"op":"ephemeral","pod":"web","ephemeral":{"name":"d","image":"busybox","targetContainerName":"A B"}}`,
		`{"op":"ephemeral","pod":"web","ephemeral":{"name":"d","image":"busybox","ports":[1]}}`,
		`[]`, `null`, ``, "\n", `{`, `"stop"`,
		strings.Repeat(`[`, 10000),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := parseRequest(b, testChecks)
		if err == nil {
			if req.Op != "stop" && req.Op != "remove" && req.Op != "condition" && req.Op != "ephemeral" {
				t.Fatalf("accepted op %q", req.Op)
			}
			if c := req.Condition; req.Op == "condition" && (c == nil || testChecks.Condition(req.Pod, c.Type, c.Status) != nil) {
				t.Fatalf("accepted condition %+v", c)
			}
			if req.Op == "ephemeral" && req.Ephemeral.check() != nil {
				t.Fatalf("accepted ephemeral container %+v", req.Ephemeral)
			}
			if err := api.CheckName("pod", req.Pod); err != nil {
				t.Fatalf("accepted pod name: %v", err)
			}
			if req.Grace != nil && *req.Grace < 0 {
				t.Fatalf("accepted grace %v", *req.Grace)
			}
			enc, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			again, err := parseRequest(enc, testChecks)
			if err != nil || !reflect.DeepEqual(again, req) {
				t.Fatalf("round trip: %+v, %v; want %+v", again, err, req)
			}
		}
		if len(b)+1 > maxRequest || bytes.IndexByte(b, '\n') >= 0 {
			return
		}
		got, rerr := readRequest(bytes.NewReader(append(b[:len(b):len(b)], '\n')), testChecks)
		if (rerr == nil) != (err == nil) || !reflect.DeepEqual(got, req) {
			t.Fatalf("readRequest = %+v, %v; parseRequest = %+v, %v", got, rerr, req, err)
		}
	})
}

// readRequest refuses a line longer than the cap, and one that ends before its newline.
func TestReadRequestCap(t *testing.T) {
	line := `{"op":"stop","pod":"web"}`
	pad := strings.Repeat(" ", maxRequest-len(line)-1)
	if req, err := readRequest(strings.NewReader(pad+line+"\n"), testChecks); err != nil || req.Pod != "web" {
		t.Errorf("a request of exactly the cap: %+v, %v", req, err)
	}
	if _, err := readRequest(strings.NewReader(pad+" "+line+"\n"), testChecks); !errors.Is(err, errRequestTooLarge) {
		t.Errorf("a request one byte over the cap: %v, want errRequestTooLarge", err)
	}
	if _, err := readRequest(strings.NewReader(line), testChecks); err == nil {
		t.Errorf("a request without its newline was accepted")
	}
}
