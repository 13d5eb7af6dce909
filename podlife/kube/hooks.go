package kube

import (
	"fmt"
	"slices"
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
			c.is.Field(field.Required(p.Child("exec", "command"), ""))
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
			c.is.Field(field.Invalid(p.Child("sleep"), h.Sleep.Seconds,
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
	if os := c.src.spec.OS; os == nil {
		c.is.Field(field.Forbidden(p, "may not be set for containers with empty `spec.os.name`"))
		return 0
	} else if os.Name == "" {
		return 0 // os.name is reported Required
	}
	if slices.Contains(linuxStopSignals, name) {
		if sig, err := signal.ParseSignal(strings.TrimPrefix(string(name), "SIG")); err == nil {
			return sig
		}
	}
	// The API server's message lists its set, sorted.
	c.is.Field(field.NotSupported(p, name, slices.Sorted(slices.Values(linuxStopSignals))))
	return 0
}

// linuxStopSignals are the stop signals the API server allows for a Linux pod.
var linuxStopSignals = []corev1.Signal{
	corev1.SIGABRT, corev1.SIGALRM, corev1.SIGBUS, corev1.SIGCHLD, corev1.SIGCLD, corev1.SIGCONT, corev1.SIGFPE,
	corev1.SIGHUP, corev1.SIGILL, corev1.SIGINT, corev1.SIGIO, corev1.SIGIOT, corev1.SIGKILL, corev1.SIGPIPE,
	corev1.SIGPOLL, corev1.SIGPROF, corev1.SIGPWR, corev1.SIGQUIT, corev1.SIGSEGV, corev1.SIGSTKFLT,
	corev1.SIGSTOP, corev1.SIGSYS, corev1.SIGTERM, corev1.SIGTRAP, corev1.SIGTSTP, corev1.SIGTTIN,
	corev1.SIGTTOU, corev1.SIGURG, corev1.SIGUSR1, corev1.SIGUSR2, corev1.SIGVTALRM, corev1.SIGWINCH,
	corev1.SIGXCPU, corev1.SIGXFSZ, corev1.SIGRTMIN, corev1.SIGRTMINPLUS1, corev1.SIGRTMINPLUS2,
	corev1.SIGRTMINPLUS3, corev1.SIGRTMINPLUS4, corev1.SIGRTMINPLUS5, corev1.SIGRTMINPLUS6,
	corev1.SIGRTMINPLUS7, corev1.SIGRTMINPLUS8, corev1.SIGRTMINPLUS9, corev1.SIGRTMINPLUS10,
	corev1.SIGRTMINPLUS11, corev1.SIGRTMINPLUS12, corev1.SIGRTMINPLUS13, corev1.SIGRTMINPLUS14,
	corev1.SIGRTMINPLUS15, corev1.SIGRTMAXMINUS14, corev1.SIGRTMAXMINUS13, corev1.SIGRTMAXMINUS12,
	corev1.SIGRTMAXMINUS11, corev1.SIGRTMAXMINUS10, corev1.SIGRTMAXMINUS9, corev1.SIGRTMAXMINUS8,
	corev1.SIGRTMAXMINUS7, corev1.SIGRTMAXMINUS6, corev1.SIGRTMAXMINUS5, corev1.SIGRTMAXMINUS4,
	corev1.SIGRTMAXMINUS3, corev1.SIGRTMAXMINUS2, corev1.SIGRTMAXMINUS1, corev1.SIGRTMAX,
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
