package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// maxRequest caps a control request's size: a real one is some tens of bytes, and a
// client must not make the manager read without end.
const maxRequest = 64 << 10

// errRequestTooLarge: a control request went past maxRequest without its end of line.
var errRequestTooLarge = fmt.Errorf("control: request larger than %d bytes", maxRequest)

// Request is one line of JSON from a client; the answer is one Reply.
type Request struct {
	Op    string         `json:"op"` // "stop", "remove", "condition", "ephemeral" or "deadline"
	Pod   string         `json:"pod"`
	Grace *time.Duration `json:"grace,omitempty"`
	// Condition is the condition to set (op "condition").
	Condition *ConditionRequest `json:"condition,omitempty"`
	// Ephemeral is the ephemeral container to add (op "ephemeral").
	Ephemeral *EphemeralRequest `json:"ephemeral,omitempty"`
	// Deadline is the active deadline to set (op "deadline", Pod.SetActiveDeadline).
	Deadline *time.Duration `json:"deadline,omitempty"`
}

// ConditionRequest is a pod condition to set through the control socket (Pod.SetCondition).
type ConditionRequest struct {
	Type    api.ConditionType   `json:"type"`
	Status  api.ConditionStatus `json:"status"`
	Reason  string              `json:"reason,omitempty"`
	Message string              `json:"message,omitempty"`
}

// Reply is the answer to a Request: its error, and what the client tells of it.
type Reply struct {
	Error    string `json:"error,omitempty"`
	NotFound bool   `json:"notFound,omitempty"`
	// Invalid: the request was refused as invalid (ErrInvalidSpec), as SetActiveDeadline's
	// longer deadline, which only the manager can tell.
	Invalid bool `json:"invalid,omitempty"`
}

// Checks are the checks of a request's fields that package podlife owns (the rules of pod
// conditions and of deadline updates), as the control socket's first check: the manager checks
// again what depends on the pod.
type Checks struct {
	// Condition checks a condition set from outside podlife on the pod.
	Condition func(pod string, t api.ConditionType, status api.ConditionStatus) error
	// Deadline checks an active deadline set on the pod (against no current one).
	Deadline func(pod string, d time.Duration) error
}

// readRequest reads one request line (at most maxRequest bytes with its newline) from r and
// parses it (see parseRequest).
func readRequest(r io.Reader, checks Checks) (Request, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, maxRequest), 4096)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(line) == maxRequest {
			return Request{}, errRequestTooLarge
		}
		return Request{}, fmt.Errorf("control: read request: %w", err)
	}
	return parseRequest(line, checks)
}

// parseRequest parses and checks one request: a JSON object with no unknown field, a known
// op, a valid pod name and a grace period that is not negative; a condition and a deadline
// pass checks.
func parseRequest(b []byte, checks Checks) (Request, error) {
	var req Request
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return Request{}, fmt.Errorf("control: bad request: %w", err)
	}
	if dec.More() {
		return Request{}, errors.New("control: bad request: more than one value")
	}
	switch req.Op {
	case "stop", "remove":
	case "condition":
		if req.Condition == nil {
			return Request{}, errors.New("control: condition op without a condition")
		}
		if err := checks.Condition(req.Pod, req.Condition.Type, req.Condition.Status); err != nil {
			return Request{}, fmt.Errorf("control: %w", err)
		}
	case "ephemeral":
		if err := req.Ephemeral.check(); err != nil {
			return Request{}, fmt.Errorf("control: %w", err)
		}
	case "deadline":
		if req.Deadline == nil {
			return Request{}, errors.New("control: deadline op without a deadline")
		}
		if err := checks.Deadline(req.Pod, *req.Deadline); err != nil {
			return Request{}, fmt.Errorf("control: %w", err)
		}
	default:
		return Request{}, fmt.Errorf("control: unknown op %q", req.Op)
	}
	if err := api.CheckName("pod", req.Pod); err != nil {
		return Request{}, fmt.Errorf("control: %w", err)
	}
	if req.Grace != nil && *req.Grace < 0 {
		return Request{}, fmt.Errorf("control: negative grace period %v", *req.Grace)
	}
	return req, nil
}
