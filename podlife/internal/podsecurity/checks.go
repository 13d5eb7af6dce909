package podsecurity

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
)

// checkSet is a set of Pod Security checks and the evaluator that runs them as the API
// server's admission does (ordering, overrides of baseline checks by restricted ones).
type checkSet struct {
	eval policy.Evaluator
	ids  []policy.CheckID
}

// psaChecks are the Pod Security checks of k8s.io/pod-security-admission: all of them, the
// ones podlife applies by default, and each alone (to find the fields that fail one).
type psaChecks struct {
	all, defaults checkSet
	single        map[policy.CheckID]policy.Evaluator
	levels        map[policy.CheckID]api.Level
	// overridden are the baseline checks that a restricted check replaces at "latest".
	overridden map[policy.CheckID]bool
}

// defaultCheckIDs are the baseline checks podlife applies when Config.PodSecurity is empty:
// capabilities beyond the baseline set, and seccomp Unconfined.
var defaultCheckIDs = []policy.CheckID{"capabilities_baseline", "seccompProfile_baseline"}

// podSecurityChecks builds the evaluators once; they are immutable and safe for concurrent
// use, like a compiled regular expression.
var podSecurityChecks = sync.OnceValue(func() *psaChecks {
	checks := policy.DefaultChecks()
	p := &psaChecks{single: map[policy.CheckID]policy.Evaluator{}, levels: map[policy.CheckID]api.Level{}, overridden: map[policy.CheckID]bool{}}
	var defaults []policy.Check
	for _, c := range checks {
		p.all.ids = append(p.all.ids, c.ID)
		p.single[c.ID] = mustEvaluator([]policy.Check{c})
		p.levels[c.ID] = c.Level
		for _, o := range c.Versions[len(c.Versions)-1].OverrideCheckIDs {
			p.overridden[o] = true
		}
		if slices.Contains(defaultCheckIDs, c.ID) {
			defaults = append(defaults, c)
			p.defaults.ids = append(p.defaults.ids, c.ID)
		}
	}
	if len(defaults) != len(defaultCheckIDs) {
		panic(fmt.Sprintf("podlife: k8s.io/pod-security-admission has no check %v", defaultCheckIDs))
	}
	p.all.eval, p.defaults.eval = mustEvaluator(checks), mustEvaluator(defaults)
	return p
})

func mustEvaluator(checks []policy.Check) policy.Evaluator {
	e, err := policy.NewEvaluator(checks, nil)
	if err != nil {
		panic("podlife: k8s.io/pod-security-admission's checks: " + err.Error())
	}
	return e
}

// fails evaluates one check on a pod; it returns its detail and whether it refuses the pod.
func (p *psaChecks) fails(lv api.LevelVersion, id policy.CheckID, s *corev1.PodSpec) (string, bool) {
	r := policy.AggregateCheckResults(p.single[id].EvaluatePod(lv, &metav1.ObjectMeta{}, s))
	return r.ForbiddenDetail(), !r.Allowed
}

// fields finds the fields that make the pod fail the checks of set at lv: for each failing
// check, the pod's own fields (when it fails with no containers) and the fields of each
// container it names (when it fails with that container alone).
func (p *psaChecks) fields(lv api.LevelVersion, set checkSet, s *corev1.PodSpec) []string {
	var paths []string
	add := func(ps ...*field.Path) {
		for _, x := range ps {
			if s := x.String(); !slices.Contains(paths, s) {
				paths = append(paths, s)
			}
		}
	}
	root := field.NewPath("spec")
	for _, id := range set.ids {
		if p.levels[id] == api.LevelRestricted && lv.Level != api.LevelRestricted ||
			p.levels[id] == api.LevelBaseline && lv.Level == api.LevelRestricted && p.overridden[id] {
			continue
		}
		if _, fails := p.fails(lv, id, s); !fails {
			continue
		}
		found := len(paths)
		podOnly := *s
		podOnly.InitContainers, podOnly.Containers, podOnly.EphemeralContainers = nil, nil, nil
		if _, fails := p.fails(lv, id, &podOnly); fails {
			add(p.podFields(lv, id, &podOnly)...)
		}
		visitContainersV1(s, func(c *corev1.Container, path *field.Path) {
			alone := podOnly
			alone.Containers = []corev1.Container{*c}
			if detail, fails := p.fails(lv, id, &alone); fails && strings.Contains(detail, fmt.Sprintf("%q", c.Name)) {
				add(containerFields(id, c, path)...)
			}
		})
		if len(paths) == found {
			add(root)
		}
	}
	return paths
}

// podFields are the pod-level fields (of a pod without containers) that fail check id.
func (p *psaChecks) podFields(lv api.LevelVersion, id policy.CheckID, s *corev1.PodSpec) []*field.Path {
	root := field.NewPath("spec")
	sc := root.Child("securityContext")
	var out []*field.Path
	switch id {
	case "hostNamespaces":
		for _, f := range []struct {
			on   bool
			name string
		}{{s.HostNetwork, "hostNetwork"}, {s.HostPID, "hostPID"}, {s.HostIPC, "hostIPC"}} {
			if f.on {
				out = append(out, root.Child(f.name))
			}
		}
	case "hostPathVolumes", "restrictedVolumes":
		for i, v := range s.Volumes {
			one := *s
			one.Volumes = []corev1.Volume{v}
			if _, fails := p.fails(lv, id, &one); fails && v.HostPath != nil {
				out = append(out, root.Child("volumes").Index(i).Child("hostPath"))
			} else if fails {
				out = append(out, root.Child("volumes").Index(i))
			}
		}
	case "sysctls":
		if s.SecurityContext == nil {
			break
		}
		for i, sysctl := range s.SecurityContext.Sysctls {
			one, psc := *s, *s.SecurityContext
			psc.Sysctls, one.SecurityContext = []corev1.Sysctl{sysctl}, &psc
			if _, fails := p.fails(lv, id, &one); fails {
				out = append(out, sc.Child("sysctls").Index(i).Child("name"))
			}
		}
	case "seccompProfile_baseline", "seccompProfile_restricted":
		out = append(out, sc.Child("seccompProfile", "type"))
	case "runAsNonRoot":
		out = append(out, sc.Child("runAsNonRoot"))
	case "runAsUser":
		out = append(out, sc.Child("runAsUser"))
	default:
		out = append(out, sc)
	}
	return out
}

// containerFields are the fields of container c (at path) that fail check id.
func containerFields(id policy.CheckID, c *corev1.Container, path *field.Path) []*field.Path {
	sc := path.Child("securityContext")
	switch id {
	case "privileged":
		return []*field.Path{sc.Child("privileged")}
	case "capabilities_baseline":
		return []*field.Path{sc.Child("capabilities", "add")}
	case "capabilities_restricted":
		var out []*field.Path
		if c.SecurityContext != nil && c.SecurityContext.Capabilities != nil &&
			slices.ContainsFunc(c.SecurityContext.Capabilities.Add, func(c corev1.Capability) bool { return c != "NET_BIND_SERVICE" }) {
			out = append(out, sc.Child("capabilities", "add"))
		}
		if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil || !slices.Contains(c.SecurityContext.Capabilities.Drop, "ALL") {
			out = append(out, sc.Child("capabilities", "drop"))
		}
		return out
	case "hostPorts":
		var out []*field.Path
		for i, p := range c.Ports {
			if p.HostPort != 0 {
				out = append(out, path.Child("ports").Index(i).Child("hostPort"))
			}
		}
		return out
	case "hostProbesAndHostLifecycle":
		var out []*field.Path
		for _, p := range []struct {
			name  string
			probe *corev1.Probe
		}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
			if p.probe != nil && (p.probe.HTTPGet != nil && p.probe.HTTPGet.Host != "" || p.probe.TCPSocket != nil && p.probe.TCPSocket.Host != "") {
				out = append(out, path.Child(p.name))
			}
		}
		if l := c.Lifecycle; l != nil {
			for _, h := range []struct {
				name    string
				handler *corev1.LifecycleHandler
			}{{"postStart", l.PostStart}, {"preStop", l.PreStop}} {
				if h.handler != nil && (h.handler.HTTPGet != nil && h.handler.HTTPGet.Host != "" || h.handler.TCPSocket != nil && h.handler.TCPSocket.Host != "") {
					out = append(out, path.Child("lifecycle", h.name))
				}
			}
		}
		return out
	case "procMount", "procMount_restricted":
		return []*field.Path{sc.Child("procMount")}
	case "seccompProfile_baseline", "seccompProfile_restricted":
		return []*field.Path{sc.Child("seccompProfile", "type")}
	case "allowPrivilegeEscalation":
		return []*field.Path{sc.Child("allowPrivilegeEscalation")}
	case "runAsNonRoot":
		return []*field.Path{sc.Child("runAsNonRoot")}
	case "runAsUser":
		return []*field.Path{sc.Child("runAsUser")}
	}
	return []*field.Path{sc}
}

// visitContainersV1 calls f with every container of s and its path, in the checks' order.
func visitContainersV1(s *corev1.PodSpec, f func(c *corev1.Container, path *field.Path)) {
	root := field.NewPath("spec")
	for i := range s.InitContainers {
		f(&s.InitContainers[i], root.Child("initContainers").Index(i))
	}
	for i := range s.Containers {
		f(&s.Containers[i], root.Child("containers").Index(i))
	}
	for i := range s.EphemeralContainers {
		f((*corev1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon), root.Child("ephemeralContainers").Index(i))
	}
}
