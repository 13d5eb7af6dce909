package podlife

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzControlRequest: the control request parser never panics, accepts only a known op, a valid
// pod name and a grace period that is not negative, and what it accepts reads back the same once
// encoded as a client encodes it. readControlRequest agrees with it on a line within the cap.
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
		req, err := parseControlRequest(b)
		if err == nil {
			if req.Op != "stop" && req.Op != "remove" && req.Op != "condition" && req.Op != "ephemeral" {
				t.Fatalf("accepted op %q", req.Op)
			}
			if c := req.Condition; req.Op == "condition" && (c == nil || validateCondition(req.Pod, c.Type, c.Status) != nil) {
				t.Fatalf("accepted condition %+v", c)
			}
			if req.Op == "ephemeral" && req.Ephemeral.check() != nil {
				t.Fatalf("accepted ephemeral container %+v", req.Ephemeral)
			}
			if err := checkName("pod", req.Pod); err != nil {
				t.Fatalf("accepted pod name: %v", err)
			}
			if req.Grace != nil && *req.Grace < 0 {
				t.Fatalf("accepted grace %v", *req.Grace)
			}
			enc, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			again, err := parseControlRequest(enc)
			if err != nil || !reflect.DeepEqual(again, req) {
				t.Fatalf("round trip: %+v, %v; want %+v", again, err, req)
			}
		}
		if len(b)+1 > maxControlRequest || bytes.IndexByte(b, '\n') >= 0 {
			return
		}
		got, rerr := readControlRequest(bytes.NewReader(append(b[:len(b):len(b)], '\n')))
		if (rerr == nil) != (err == nil) || !reflect.DeepEqual(got, req) {
			t.Fatalf("readControlRequest = %+v, %v; parseControlRequest = %+v, %v", got, rerr, req, err)
		}
	})
}

// readControlRequest refuses a line longer than the cap, and one that ends before its newline.
func TestReadControlRequestCap(t *testing.T) {
	line := `{"op":"stop","pod":"web"}`
	pad := strings.Repeat(" ", maxControlRequest-len(line)-1)
	if req, err := readControlRequest(strings.NewReader(pad + line + "\n")); err != nil || req.Pod != "web" {
		t.Errorf("a request of exactly the cap: %+v, %v", req, err)
	}
	if _, err := readControlRequest(strings.NewReader(pad + " " + line + "\n")); !errors.Is(err, errRequestTooLarge) {
		t.Errorf("a request one byte over the cap: %v, want errRequestTooLarge", err)
	}
	if _, err := readControlRequest(strings.NewReader(line)); err == nil {
		t.Errorf("a request without its newline was accepted")
	}
}
