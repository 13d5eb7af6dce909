package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	utilexec "k8s.io/utils/exec"

	"github.com/podlife/podlife/podlife"
)

// podlifePod returns the podlife name of a pod this node runs.
func (pr *provider) podlifePod(namespace, name string) (string, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	e, ok := pr.pods[key(namespace, name)]
	if !ok {
		return "", errdefs.NotFoundf("pod %s/%s is not on this node", namespace, name)
	}
	return e.name, nil
}

// RunInContainer runs cmd in a running container (kubectl exec). A non-zero exit code is
// returned as the exit error the API server's stream reports ("command terminated with exit
// code N"). A TTY is not allocated: the command runs with plain pipes.
func (pr *provider) RunInContainer(ctx context.Context, namespace, podName, containerName string, cmd []string, attach api.AttachIO) error {
	name, err := pr.podlifePod(namespace, podName)
	if err != nil {
		return err
	}
	streams := podlife.ExecIO{Stdin: attach.Stdin()}
	if w := attach.Stdout(); w != nil {
		streams.Stdout = w
	}
	if w := attach.Stderr(); w != nil {
		streams.Stderr = w
	}
	p, err := pr.rt.Pod(name)
	if err != nil {
		return errdefs.AsNotFound(err)
	}
	code, err := p.Exec(ctx, containerName, cmd, streams)
	if err != nil {
		if errors.Is(err, podlife.ErrNotFound) {
			return errdefs.AsNotFound(err)
		}
		return err
	}
	if code != 0 {
		return utilexec.CodeExitError{Err: fmt.Errorf("command terminated with non-zero exit code %d", code), Code: code}
	}
	return nil
}

// AttachToContainer is not supported: podlife does not keep containers' stdin open.
func (pr *provider) AttachToContainer(ctx context.Context, namespace, podName, containerName string, attach api.AttachIO) error {
	return errdefs.InvalidInput("attach is not supported by podlife (use kubectl logs -f, or exec)")
}

// PortForward is not supported yet.
func (pr *provider) PortForward(ctx context.Context, namespace, pod string, port int32, stream io.ReadWriteCloser) error {
	return errdefs.InvalidInput("port-forward is not supported by podlife's node")
}

// GetContainerLogs returns a container's log as kubectl logs prints it: the current attempt's
// (or with Previous the one before), read by podlife's Pod.Logs; with Follow it goes on
// until ctx ends or the pod is removed. limitBytes is applied; tail, since and timestamps are
// not supported yet (the whole log is returned, without timestamps).
func (pr *provider) GetContainerLogs(ctx context.Context, namespace, podName, containerName string, opts api.ContainerLogOpts) (io.ReadCloser, error) {
	name, err := pr.podlifePod(namespace, podName)
	if err != nil {
		return nil, err
	}
	p, err := pr.rt.Pod(name)
	if err != nil {
		return nil, errdefs.AsNotFound(err)
	}
	r, w := io.Pipe()
	go func() {
		var out io.Writer = w
		if opts.LimitBytes > 0 {
			out = &limitWriter{w: w, left: opts.LimitBytes}
		}
		err := p.Logs(ctx, containerName, podlife.LogOptions{Previous: opts.Previous, Follow: opts.Follow}, out)
		if errors.Is(err, errLimit) || ctx.Err() != nil {
			err = nil
		}
		w.CloseWithError(err)
	}()
	return r, nil
}

var errLimit = errors.New("log limit reached")

// limitWriter writes up to left bytes, then fails with errLimit.
type limitWriter struct {
	w    io.Writer
	left int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errLimit
	}
	if len(p) > l.left {
		n, err := l.w.Write(p[:l.left])
		l.left -= n
		if err == nil {
			err = errLimit
		}
		return n, err
	}
	n, err := l.w.Write(p)
	l.left -= n
	return n, err
}
