package kube

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/moby/sys/signal"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/hook"
)

// handler converts a postStart or preStop handler: exec (run as written: the kubelet does
// not expand hook commands), httpGet (named port resolved) or sleep. tcpSocket is rejected
// by the field rules, as the kubelet fails such hooks at run time.
func (c *converter) handler(ct *corev1.Container, h *corev1.LifecycleHandler, p *field.Path) hook.Handler {
	if h == nil || !c.oneHandler(p, handlerType{"exec", h.Exec != nil}, handlerType{"httpGet", h.HTTPGet != nil},
		handlerType{"tcpSocket", h.TCPSocket != nil}, handlerType{"sleep", h.Sleep != nil}) {
		return nil
	}
	switch {
	case h.Exec != nil:
		if len(h.Exec.Command) == 0 {
			c.is.field(field.Required(p.Child("exec", "command"), ""))
			return nil
		}
		return hook.Exec(h.Exec.Command...)
	case h.HTTPGet != nil:
		g := h.HTTPGet
		port, ok := c.resolvePort(ct, g.Port, p.Child("httpGet", "port"))
		if !c.httpGetValid(g, p.Child("httpGet")) || !ok {
			return nil
		}
		return hook.HTTPGet(port, g.Path, httpGetOptions(g, hook.WithScheme, hook.WithHost, hook.WithHeader)...)
	case h.Sleep != nil:
		// The API server's rule (zero allowed since Kubernetes 1.34): a sleep longer than
		// the pod's grace period is refused.
		grace := int64(30)
		if g := c.src.spec.TerminationGracePeriodSeconds; g != nil {
			grace = *g
		}
		if h.Sleep.Seconds < 0 || h.Sleep.Seconds > grace {
			c.is.field(field.Invalid(p.Child("sleep"), h.Sleep.Seconds,
				fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", grace)))
			return nil
		}
		d, ok := c.seconds(p.Child("sleep", "seconds"), h.Sleep.Seconds)
		if !ok {
			return nil
		}
		return hook.Sleep(d)
	}
	return nil // tcpSocket: reported by the field rules
}

// stopSignal converts lifecycle.stopSignal, a signal name such as "SIGUSR1"; the API allows
// it only when spec.os.name is set.
func (c *converter) stopSignal(p *field.Path, name corev1.Signal) syscall.Signal {
	if os := c.src.spec.OS; os == nil || os.Name == "" {
		c.is.field(field.Forbidden(p, "may only be set when spec.os.name is set"))
		return 0
	}
	if s, ok := strings.CutPrefix(string(name), "SIG"); ok && s != "" && !strings.ContainsAny(s[:1], "0123456789") {
		if sig, err := signal.ParseSignal(s); err == nil {
			return sig
		}
	}
	c.is.field(field.NotSupported(p, name, []string{"SIGTERM", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "... (a Linux signal name)"}))
	return 0
}

// httpGetOptions maps an httpGet action's scheme, host and headers onto hook's or probe's options.
func httpGetOptions[O any](g *corev1.HTTPGetAction, scheme, host func(string) O, header func(k, v string) O) []O {
	var opts []O
	if g.Scheme != "" {
		opts = append(opts, scheme(string(g.Scheme)))
	}
	if g.Host != "" {
		opts = append(opts, host(g.Host))
	}
	for _, hd := range g.HTTPHeaders {
		opts = append(opts, header(hd.Name, hd.Value))
	}
	return opts
}
