package kube

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/internal/apirules"
	"github.com/podlife/podlife/podlife/kube/internal/apicheck"
	"github.com/podlife/podlife/podlife/kube/internal/env"
	"github.com/podlife/podlife/podlife/kube/internal/expand"
	"github.com/podlife/podlife/podlife/kube/internal/fields"
	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// Options configure Load, LoadFiles and Convert.
type Options struct {
	// Strict turns warnings into errors: manifests load only if podlife honours every field
	// set in them (fields the table documents as ignored excepted).
	Strict bool
	// Namespace is the namespace of objects whose metadata names none; default "default".
	Namespace string
	// Allocatable is the node allocatable the downward API (resourceFieldRef) reports for a
	// limit a container does not set, as the kubelet does. Nil means this host's: its CPUs
	// (runtime.NumCPU), memory (MemTotal in /proc/meminfo) and root filesystem size, with
	// nothing reserved.
	Allocatable corev1.ResourceList
	// PodName names the podlife pod of the Kubernetes pod namespace/name. podlife names the
	// pod's directories and containers after it, so it must be a DNS-1123 label (at most 63
	// characters), where the API server allows a pod name of 253 (a DNS-1123 subdomain). Nil
	// keeps metadata.name, which must then be a label: a longer name is an error. Either way
	// the downward API's metadata.name is the Kubernetes name, and so is the hostname (unless
	// spec.hostname or spec.hostnameOverride is set), cut to 63 characters as the kubelet does.
	PodName func(namespace, name string) string
	// NodeName is what the downward API's spec.nodeName gives for a pod that names no
	// spec.nodeName (a manifest's); empty means this host's name in lower case, a kubelet's
	// default node name.
	NodeName string
	// ServiceEnv are the Service variables the kubelet gives every container of the pod
	// (FOO_SERVICE_HOST, FOO_SERVICE_PORT, ...: see ServiceEnv, which computes them from the
	// cluster's Services). As on a kubelet, a variable of the container's env or envFrom of
	// the same name wins, and $(VAR) references in env values, command, args and
	// subPathExpr expand to them. Nil: none (podlife alone has no Services).
	ServiceEnv map[string]string
}

// namespace returns the namespace of an object that names ns (maybe empty).
func (o Options) namespace(ns string) string { return cmp.Or(ns, o.Namespace, "default") }

// Convert converts a Pod to a podlife pod spec, leaving the API server's defaults that podlife
// applies to podlife (see the package documentation), resolving configMap and secret references against objects. It is the core
// of Load, for callers that build or decode Pods themselves.
//
// The warnings are the fields dropped or not enforced. The error, if any, is a *LoadError
// listing every field that cannot be honoured or is invalid, by its path from the Pod's root
// ("spec.containers[0].volumeMounts[1].mountPropagation"); the spec is then the zero value.
func Convert(pod *corev1.Pod, objects Objects, opts Options) (podlife.PodSpec, []Issue, error) {
	if pod == nil {
		return podlife.PodSpec{}, nil, &LoadError{Issues: []Issue{{Document: Document{Index: -1, Kind: kindPod},
			Path: DocumentPath, Message: "Required value: no pod given", Severity: Error}}}
	}
	is := newIssues(Document{Index: -1, Kind: kindPod, Name: pod.Name})
	spec := convertPod(podFromPod(pod), objects, opts, newShared(), is)
	list := is.all()
	sortIssues(list)
	errs, warns := split(list, opts.Strict)
	if len(errs) > 0 {
		return podlife.PodSpec{}, warns, &LoadError{Issues: errs, Warnings: warns}
	}
	return spec, warns, nil
}

// converter converts one pod, recording issues by their paths in the document.
type converter struct {
	src     *podSource
	objects Objects
	is      *issues
	// metaPath and specPath are where the pod's metadata and spec are in the document.
	metaPath, specPath *field.Path
	out                podlife.PodSpec
	// pathMap maps paths of podlife's validation errors to document paths, where they differ
	// (an env entry that came from envFrom, a file that came from a configMap item).
	pathMap map[string]string
	// shared is what the conversions of the load share.
	shared *shared
	// opts are the load options.
	opts Options
	// x expands $(VAR) references within the load's budget; envs resolves the containers'
	// environments and the downward API.
	x    expand.Expander
	envs *env.Resolver
}

// convertPod converts a pod source, sharing with the other pods of the load what sh holds;
// the issues it finds go to is.
func convertPod(src *podSource, objects Objects, opts Options, sh *shared, is *issues) podlife.PodSpec {
	c := &converter{
		src: src, objects: objects, is: is, shared: sh,
		metaPath: report.ChildPath(src.root, "metadata"), specPath: report.ChildPath(src.root, "spec"),
		pathMap: map[string]string{}, opts: opts,
		x: expand.Expander{Budget: sh.budget, Issues: is.List},
	}
	fields.Check(fields.Pod(), src.checked, src.root, is.List)
	c.convertMeta(opts)
	c.envs = env.New(c.envPod(), c.x)
	c.convertSpec()
	c.seLinux()
	c.validate()
	return c.out
}

// convertMeta sets the name, namespace and labels.
func (c *converter) convertMeta(opts Options) {
	if !c.src.template && c.src.name == "" && c.src.meta.generateName != "" {
		c.is.Field(field.Required(c.src.namePath, "podlife needs a fixed name: metadata.generateName is not supported"))
	}
	c.out.Name = c.src.name
	c.out.Namespace = opts.namespace(c.src.namespace)
	c.podName(opts)
	c.out.Labels = maps.Clone(c.src.meta.labels)
	// Annotations only feed the downward API, but the API server checks their keys and size.
	for _, fe := range apivalidation.ValidateAnnotations(c.src.meta.annotations, c.metaPath.Child("annotations")) {
		c.is.Field(fe)
	}
}

// convertSpec converts the pod's spec.
func (c *converter) convertSpec() {
	s, sp := c.src.spec, c.specPath
	c.restartPolicy()
	// Unset, it takes podlife's default, the API's 30 s (see podlife.PodSpec.WithDefaults).
	if s.TerminationGracePeriodSeconds != nil {
		grace := *s.TerminationGracePeriodSeconds
		if grace < 0 {
			// The API server accepts it with this warning (pkg/api/pod: GetWarningsForPod),
			// and the kubelet uses 1 s.
			c.is.Warnf(sp.Child("terminationGracePeriodSeconds"), "must be >= 0; negative values are invalid and will be treated as 1")
			grace = 1
		}
		if d, ok := c.seconds(sp.Child("terminationGracePeriodSeconds"), grace); ok {
			c.out.TerminationGracePeriod = &d
		}
	}
	c.activeDeadline()
	c.out.HostNetwork = s.HostNetwork
	c.out.HostPID = s.HostPID
	c.out.HostIPC = s.HostIPC
	c.out.ShareProcessNamespace = s.ShareProcessNamespace != nil && *s.ShareProcessNamespace
	if s.RuntimeClassName != nil {
		c.out.RuntimeClassName = *s.RuntimeClassName
	}
	c.out.Hostname = s.Hostname
	c.hostname(sp)
	if s.HostnameOverride != nil {
		if s.HostNetwork {
			c.is.Field(field.Forbidden(sp.Child("hostnameOverride"), "may not be set when hostNetwork is true"))
		}
		c.out.Hostname = podHostname(*s.HostnameOverride)
		c.mapPath("spec.hostname", sp.Child("hostnameOverride"))
	}
	if c.out.Hostname == "" && c.out.Name != c.src.name {
		// podlife's default, the podlife name, is not the Kubernetes one.
		c.out.Hostname = podHostname(c.src.name)
	}
	c.dns()
	for _, a := range s.HostAliases {
		c.out.HostAliases = append(c.out.HostAliases, podlife.HostAlias{IP: a.IP, Hostnames: a.Hostnames})
	}
	if s.OS != nil {
		// The API server's rule (validateOS), then podlife's: Linux only.
		switch s.OS.Name {
		case corev1.Linux:
		case "":
			c.is.Field(field.Required(sp.Child("os", "name"), ""))
		case corev1.Windows:
			c.is.Field(field.NotSupported(sp.Child("os", "name"), s.OS.Name, []corev1.OSName{corev1.Linux}))
		default:
			c.is.Field(field.NotSupported(sp.Child("os"), s.OS.Name, []corev1.OSName{corev1.Linux, corev1.Windows}))
		}
	}
	c.pullCredentials()
	apicheck.Dropped(c.src.spec, c.specPath, c.is.List)
	c.out.SecurityContext = podSecurity(s.SecurityContext)
	if s.Resources != nil {
		c.out.Resources = c.resources(s.Resources, sp.Child("resources"), true)
	}
	for _, g := range s.ReadinessGates {
		c.out.ReadinessGates = append(c.out.ReadinessGates, conditions.Type(g.ConditionType))
	}
	c.volumes()
	for i := range s.InitContainers {
		c.out.InitContainers = append(c.out.InitContainers, c.container(&s.InitContainers[i], "initContainers", i))
	}
	for i := range s.Containers {
		c.out.Containers = append(c.out.Containers, c.container(&s.Containers[i], "containers", i))
	}
}

// restartPolicy sets the pod's restart policy (podlife's default: Always); a workload's template
// must keep Always, and a Job's must say OnFailure or Never, as the API validates them.
func (c *converter) restartPolicy() {
	rp := c.src.spec.RestartPolicy
	p := c.specPath.Child("restartPolicy")
	switch {
	case c.src.job && (rp == "" || rp == corev1.RestartPolicyAlways):
		c.is.Field(field.Required(p, fmt.Sprintf("valid values: %q, %q", corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever)))
	case c.src.job && rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever:
		c.is.Field(field.NotSupported(p, rp, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	case c.src.template && !c.src.job && rp != "" && rp != corev1.RestartPolicyAlways:
		c.is.Field(field.NotSupported(p, rp, []corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	c.out.RestartPolicy = podlife.RestartPolicy(rp) // unset: podlife's default, Always
}

// activeDeadline sets the pod's deadline: its own activeDeadlineSeconds, or a Job's if that
// is shorter.
func (c *converter) activeDeadline() {
	set := func(p *field.Path, n *int64) {
		if n == nil {
			return
		}
		if *n < 1 || *n > math.MaxInt32 {
			c.is.Field(field.Invalid(p, *n, validation.InclusiveRangeError(1, math.MaxInt32)))
			return
		}
		if d, ok := c.seconds(p, *n); ok && (c.out.ActiveDeadline == nil || d < *c.out.ActiveDeadline) {
			c.out.ActiveDeadline = &d
		}
	}
	set(c.specPath.Child("activeDeadlineSeconds"), c.src.spec.ActiveDeadlineSeconds)
	set(field.NewPath("spec", "activeDeadlineSeconds"), c.src.deadline)
}

// dns sets the pod's resolv.conf from dnsPolicy and dnsConfig. The dnsConfig is checked as
// the API server does (validatePodDNSConfig) whatever the policy.
func (c *converter) dns() {
	s, sp := c.src.spec, c.specPath
	dp := sp.Child("dnsConfig")
	if dc := s.DNSConfig; dc != nil {
		if s.DNSPolicy == corev1.DNSNone && len(dc.Nameservers) == 0 {
			c.is.Field(field.Required(dp.Child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None"))
		}
		for _, fe := range apirules.DNS(dp, dc.Nameservers, dc.Searches) {
			c.is.Field(fe)
		}
		for i, o := range dc.Options {
			if o.Name == "" {
				c.is.Field(field.Required(dp.Child("options").Index(i), "must not be empty"))
			}
		}
	}
	switch s.DNSPolicy {
	case "", corev1.DNSClusterFirst, corev1.DNSClusterFirstWithHostNet, corev1.DNSDefault:
		if s.DNSConfig != nil && (len(s.DNSConfig.Nameservers) > 0 || len(s.DNSConfig.Searches) > 0 || len(s.DNSConfig.Options) > 0) {
			c.is.Warnf(dp, "Not honoured: dnsConfig needs dnsPolicy None: podlife does not merge it into the host's resolv.conf")
		}
	case corev1.DNSNone:
		if s.DNSConfig == nil {
			c.is.Field(field.Required(dp, "must provide `dnsConfig` when `dnsPolicy` is None"))
			return
		}
		dns := &podlife.DNSConfig{Nameservers: s.DNSConfig.Nameservers, Searches: s.DNSConfig.Searches}
		for _, o := range s.DNSConfig.Options {
			if o.Name == "" {
				continue // reported above
			}
			opt := o.Name
			if o.Value != nil {
				opt += ":" + *o.Value
			}
			dns.Options = append(dns.Options, opt)
		}
		c.out.DNS = dns
	default:
		c.is.Field(field.NotSupported(sp.Child("dnsPolicy"), s.DNSPolicy, []corev1.DNSPolicy{
			corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone}))
	}
}

// maxSeconds is the largest number of seconds a time.Duration holds.
const maxSeconds = math.MaxInt64 / int64(time.Second)

// seconds converts a field in seconds to a duration; a value out of a duration's range is an
// error.
func (c *converter) seconds(p *field.Path, n int64) (time.Duration, bool) {
	if n > maxSeconds || n < -maxSeconds {
		c.is.Field(field.Invalid(p, n, "must be at most 9223372036"))
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// mapPath records that podlife's validation path pl stands for the document path p.
func (c *converter) mapPath(pl string, p *field.Path) { c.pathMap[pl] = p.String() }

// envPod is what the environments of the pod's containers are resolved from.
func (c *converter) envPod() env.Pod {
	return env.Pod{
		Name: c.src.name, Namespace: c.out.Namespace, UID: c.src.meta.uid,
		Labels: c.src.meta.labels, Annotations: c.src.meta.annotations, Spec: c.src.spec,
		NodeName: c.opts.NodeName, ServiceEnv: c.opts.ServiceEnv, Allocatable: c.opts.Allocatable,
		ConfigMap: c.objects.configMap,
		SecretData: func(name string) map[string]string {
			if s := c.objects.secret(name); s != nil {
				return c.shared.secretStringData(s)
			}
			return nil
		},
		MapPath: c.mapPath,
	}
}
