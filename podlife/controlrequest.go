package podlife

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxControlRequest caps a control request's size: a real one is some tens of bytes, and a
// client must not make the manager read without end.
const maxControlRequest = 64 << 10

// errRequestTooLarge: a control request went past maxControlRequest without its end of line.
var errRequestTooLarge = fmt.Errorf("control: request larger than %d bytes", maxControlRequest)

// readControlRequest reads one request line (at most maxControlRequest bytes with its newline)
// from r and parses it.
func readControlRequest(r io.Reader) (controlRequest, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, maxControlRequest), 4096)
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
		if errors.Is(err, io.EOF) && len(line) == maxControlRequest {
			return controlRequest{}, errRequestTooLarge
		}
		return controlRequest{}, fmt.Errorf("control: read request: %w", err)
	}
	return parseControlRequest(line)
}

// parseControlRequest parses and checks one request: a JSON object with no unknown field, a
// known op, a valid pod name and a grace period that is not negative.
func parseControlRequest(b []byte) (controlRequest, error) {
	var req controlRequest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return controlRequest{}, fmt.Errorf("control: bad request: %w", err)
	}
	if dec.More() {
		return controlRequest{}, errors.New("control: bad request: more than one value")
	}
	switch req.Op {
	case "stop", "remove":
	case "condition":
		if req.Condition == nil {
			return controlRequest{}, errors.New("control: condition op without a condition")
		}
		if err := validateCondition(req.Pod, req.Condition.Type, req.Condition.Status); err != nil {
			return controlRequest{}, fmt.Errorf("control: %w", err)
		}
	case "ephemeral":
		if err := req.Ephemeral.check(); err != nil {
			return controlRequest{}, fmt.Errorf("control: %w", err)
		}
	case "deadline":
		if req.Deadline == nil {
			return controlRequest{}, errors.New("control: deadline op without a deadline")
		}
		if err := checkDeadlineUpdate(req.Pod, nil, *req.Deadline); err != nil {
			return controlRequest{}, fmt.Errorf("control: %w", err)
		}
	default:
		return controlRequest{}, fmt.Errorf("control: unknown op %q", req.Op)
	}
	if err := checkName("pod", req.Pod); err != nil {
		return controlRequest{}, fmt.Errorf("control: %w", err)
	}
	if req.Grace != nil && *req.Grace < 0 {
		return controlRequest{}, fmt.Errorf("control: negative grace period %v", *req.Grace)
	}
	return req, nil
}
