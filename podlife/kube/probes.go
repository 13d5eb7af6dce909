package kube

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/kube/internal/expand"
	"github.com/podlife/podlife/probe"
)

// probe converts a probe; its zero timings take podlife's defaults, the API's (period 10 s,
// timeout 1 s, success threshold 1, failure threshold 3: probe.Spec.WithDefaults). Named ports are resolved against the container's
// ports; an exec command has its $(VAR) references expanded from the literal values of the
// container's env only, as the kubelet's prober does.
func (c *converter) probe(ct *corev1.Container, pr *corev1.Probe, p *field.Path) *probe.Spec {
	if pr == nil {
		return nil
	}
	prober := c.prober(ct, &pr.ProbeHandler, p)
	if prober == nil {
		// The handler's errors are reported; a stand-in lets validation check the rest.
		prober = notConverted
	}
	out := &probe.Spec{
		Prober:           prober,
		InitialDelay:     time.Duration(pr.InitialDelaySeconds) * time.Second,
		Period:           time.Duration(pr.PeriodSeconds) * time.Second,
		Timeout:          time.Duration(pr.TimeoutSeconds) * time.Second,
		SuccessThreshold: int(pr.SuccessThreshold),
		FailureThreshold: int(pr.FailureThreshold),
	}
	if g := pr.TerminationGracePeriodSeconds; g != nil {
		if d, ok := c.seconds(p.Child("terminationGracePeriodSeconds"), *g); ok {
			out.TerminationGracePeriod = &d
		}
	}
	return out
}

// notConverted stands in for a handler whose errors are reported; the spec it is in is
// never returned.
var notConverted = probe.ProberFunc(func(context.Context, hook.Target) (probe.Result, string, error) {
	return probe.Unknown, "", errors.New("kube: handler not converted")
})

// prober converts a probe's handler; nil if it has none or more than one (reported).
func (c *converter) prober(ct *corev1.Container, h *corev1.ProbeHandler, p *field.Path) probe.Prober {
	if !c.oneHandler(p, handlerType{"exec", h.Exec != nil}, handlerType{"httpGet", h.HTTPGet != nil},
		handlerType{"tcpSocket", h.TCPSocket != nil}, handlerType{"grpc", h.GRPC != nil}) {
		return nil
	}
	switch {
	case h.Exec != nil:
		if len(h.Exec.Command) == 0 {
			c.is.Field(field.Required(p.Child("exec", "command"), ""))
			return nil
		}
		cmd, _, ok := c.x.List(p.Child("exec", "command"), h.Exec.Command, expand.MapLookup(staticEnv(ct.Env)), expand.NoRoom)
		if !ok {
			return nil
		}
		return probe.Exec(cmd...)
	case h.HTTPGet != nil:
		g := h.HTTPGet
		port, ok := c.resolvePort(ct, g.Port, p.Child("httpGet", "port"))
		if !c.httpGetValid(g, p.Child("httpGet")) || !ok {
			return nil
		}
		host := func(h string) probe.HTTPOption { return probe.WithHost(h) }
		return probe.HTTPGet(port, g.Path, httpGetOptions(g, probe.WithScheme, host, probe.WithHeader)...)
	case h.TCPSocket != nil:
		port, ok := c.resolvePort(ct, h.TCPSocket.Port, p.Child("tcpSocket", "port"))
		if !ok {
			return nil
		}
		var opts []probe.TCPOption
		if h.TCPSocket.Host != "" {
			opts = append(opts, probe.WithHost(h.TCPSocket.Host))
		}
		return probe.TCPSocket(port, opts...)
	default:
		if !c.portValid(intstr.FromInt32(h.GRPC.Port), p.Child("grpc", "port")) {
			return nil
		}
		service := ""
		if h.GRPC.Service != nil {
			service = *h.GRPC.Service
		}
		return probe.GRPC(int(h.GRPC.Port), service)
	}
}

// handlerType is one of a handler's types, in the API server's order (exec, httpGet, tcpSocket,
// grpc, sleep), and whether it is set.
type handlerType struct {
	name string
	set  bool
}

// oneHandler checks that exactly one handler type is set; as the API server does, each extra
// type is reported at its own path.
func (c *converter) oneHandler(p *field.Path, types ...handlerType) bool {
	n := 0
	for _, t := range types {
		if !t.set {
			continue
		}
		if n > 0 {
			c.is.Field(field.Forbidden(p.Child(t.name), "may not specify more than 1 handler type"))
		}
		n++
	}
	if n == 0 {
		c.is.Field(field.Required(p, "must specify a handler type"))
	}
	return n == 1
}

// staticEnv maps the container's env names to their literal values ("" for a valueFrom),
// what the kubelet expands probe commands with.
func staticEnv(env []corev1.EnvVar) map[string]string {
	m := make(map[string]string, len(env))
	for _, e := range env {
		m[e.Name] = e.Value
	}
	return m
}

// httpGetValid checks an httpGet action's scheme and header names as the API server does
// (validateHTTPGetAction); the path defaults to "/" and the port is checked by resolvePort.
func (c *converter) httpGetValid(g *corev1.HTTPGetAction, p *field.Path) bool {
	ok := true
	if g.Scheme != "" && g.Scheme != corev1.URISchemeHTTP && g.Scheme != corev1.URISchemeHTTPS {
		c.is.Field(field.NotSupported(p.Child("scheme"), g.Scheme, []corev1.URIScheme{corev1.URISchemeHTTP, corev1.URISchemeHTTPS}))
		ok = false
	}
	for _, h := range g.HTTPHeaders {
		// Reported at the list, as the API server does.
		for _, msg := range validation.IsHTTPHeaderName(h.Name) {
			c.is.Field(field.Invalid(p.Child("httpHeaders"), h.Name, msg))
			ok = false
		}
	}
	return ok
}

// portValid checks a port number or name as the API server does (ValidatePortNumOrName).
func (c *converter) portValid(port intstr.IntOrString, p *field.Path) bool {
	var errs field.ErrorList
	if port.Type == intstr.Int {
		for _, msg := range validation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(p, port.IntValue(), msg))
		}
	} else {
		for _, msg := range validation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(p, port.StrVal, msg))
		}
	}
	for _, fe := range errs {
		c.is.Field(fe)
	}
	return len(errs) == 0
}

// resolvePort resolves a port given as a number or as the name of one of the container's
// ports, as the kubelet does. A number in a string is refused, as the API server does.
func (c *converter) resolvePort(ct *corev1.Container, port intstr.IntOrString, p *field.Path) (int, bool) {
	if !c.portValid(port, p) {
		return 0, false
	}
	if port.Type == intstr.Int {
		return int(port.IntVal), true
	}
	for _, cp := range ct.Ports {
		if cp.Name == port.StrVal {
			return int(cp.ContainerPort), true
		}
	}
	c.is.Field(field.Invalid(p, port.StrVal, "no port of the container has this name"))
	return 0, false
}
