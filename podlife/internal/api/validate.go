package api

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/distribution/reference"

	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/apirules"
	"github.com/podlife/podlife/probe"
)

// Validate checks the spec without touching the host, as admission does: with its defaults
// applied (see WithDefaults), as the API server validates a defaulted pod. The error, if any,
// is a *ValidationError listing every problem with its field path, in the form Kubernetes
// users read (`spec.containers[1].name: Duplicate value: "app"`).
func (s *PodSpec) Validate() error {
	d := s.WithDefaults()
	return d.validate()
}

// validate is Validate of a defaulted spec (admission's: see Runtime.admit).
func (s *PodSpec) validate() error {
	var errs field.ErrorList
	root := field.NewPath("spec")
	errs = append(errs, validateName(field.NewPath("metadata", "name"), s.Name)...)
	if s.Namespace != "" {
		errs = append(errs, validateName(field.NewPath("metadata", "namespace"), s.Namespace)...)
	}
	if s.Hostname != "" && s.Hostname != s.Name {
		// The default hostname, the name, is checked as metadata.name.
		errs = append(errs, validateHostname(root.Child("hostname"), s.Hostname)...)
	}
	// As the API server, label errors are reported at the map, not at the key.
	errs = append(errs, metavalidation.ValidateLabels(s.Labels, field.NewPath("metadata", "labels"))...)
	switch s.RestartPolicy {
	case "", RestartAlways, RestartOnFailure, RestartNever:
	default:
		errs = append(errs, field.NotSupported(root.Child("restartPolicy"), s.RestartPolicy,
			[]RestartPolicy{RestartAlways, RestartOnFailure, RestartNever}))
	}
	if g := s.TerminationGracePeriod; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(root.Child("terminationGracePeriodSeconds"), inSeconds(*g), "must be greater than or equal to 0"))
	}
	volumes, verrs := validateVolumes(root.Child("volumes"), s.Volumes)
	errs = append(errs, verrs...)
	if len(s.Containers) == 0 {
		errs = append(errs, field.Required(root.Child("containers"), ""))
	}
	names := map[string]bool{}
	// Host ports may not collide between app containers, nor within one init container
	// (init containers run one after the other), as the API server checks them.
	appPorts := map[string]bool{}
	check := func(p *field.Path, cs []ContainerSpec, init bool) {
		for i := range cs {
			hostPorts := appPorts
			if init {
				hostPorts = map[string]bool{}
			}
			errs = append(errs, ValidateContainer(p.Index(i), &cs[i], volumes, names, hostPorts)...)
			errs = append(errs, validateLifecycle(p.Index(i), &cs[i], init)...)
		}
	}
	// The API server validates containers before init containers: a name used by both is
	// reported at the init container.
	check(root.Child("containers"), s.Containers, false)
	check(root.Child("initContainers"), s.InitContainers, true)
	errs = append(errs, validateDependencies(root, s)...)
	errs = append(errs, validateSecurity(root, s)...)
	errs = append(errs, validatePodResources(root.Child("resources"), s)...)
	errs = append(errs, validateReadinessGates(root.Child("readinessGates"), s.ReadinessGates)...)
	if s.RuntimeClassName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(s.RuntimeClassName) {
			errs = append(errs, field.Invalid(root.Child("runtimeClassName"), s.RuntimeClassName, msg))
		}
	}
	if s.ShareProcessNamespace && s.HostPID {
		// The API server's path (validateShareProcessNamespace, Kubernetes 1.37).
		errs = append(errs, field.Invalid(root.Child("shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	// The API server's range in seconds; a Go spec may also give a positive fraction of one.
	if d := s.ActiveDeadline; d != nil && (*d <= 0 || *d > math.MaxInt32*time.Second) {
		errs = append(errs, field.Invalid(root.Child("activeDeadlineSeconds"), inSeconds(*d), validation.InclusiveRangeError(1, math.MaxInt32)))
	}
	for i, a := range s.HostAliases {
		p := root.Child("hostAliases").Index(i)
		for _, msg := range validation.IsValidIP(p.Child("ip"), a.IP) {
			errs = append(errs, msg)
		}
		for j, h := range a.Hostnames {
			for _, msg := range validation.IsDNS1123Subdomain(h) {
				errs = append(errs, field.Invalid(p.Child("hostnames").Index(j), h, msg))
			}
		}
	}
	if s.DNS != nil {
		dp := root.Child("dnsConfig")
		errs = append(errs, apirules.DNS(dp, s.DNS.Nameservers, s.DNS.Searches)...)
		for i, o := range s.DNS.Options {
			if o == "" || strings.HasPrefix(o, ":") {
				errs = append(errs, field.Required(dp.Child("options").Index(i), "must not be empty"))
			}
		}
	}
	for i, c := range s.PullCredentials {
		if c.Registry == "" {
			errs = append(errs, field.Required(root.Child("imagePullSecrets").Index(i).Child("registry"), ""))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &ValidationError{Pod: s.Name, Errs: errs}
}

func validateName(p *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// maxHostname is the longest hostname podlife sets: the kubelet cuts a pod's hostname to 63.
const maxHostname = 63

// validateHostname checks a pod's hostname: a DNS-1123 subdomain of at most 63 characters, what
// the kubelet sets as the UTS hostname from Kubernetes' hostnameOverride (spec.hostname proper
// is a label: podlife/kube checks it).
func validateHostname(p *field.Path, name string) field.ErrorList {
	if len(name) > maxHostname {
		return field.ErrorList{field.TooLong(p, "", maxHostname)}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

func validateVolumes(p *field.Path, vols []Volume) (map[string]bool, field.ErrorList) {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, v := range vols {
		vp := p.Index(i)
		errs = append(errs, validateName(vp.Child("name"), v.Name)...)
		if names[v.Name] {
			errs = append(errs, field.Duplicate(vp.Child("name"), v.Name))
		}
		names[v.Name] = true
		n := 0
		if v.EmptyDir != nil {
			n++
			switch v.EmptyDir.Medium {
			case MediumDefault, MediumMemory:
			default:
				errs = append(errs, field.NotSupported(vp.Child("emptyDir", "medium"), v.EmptyDir.Medium,
					[]StorageMedium{MediumDefault, MediumMemory}))
			}
			if v.EmptyDir.SizeLimit < 0 {
				errs = append(errs, field.Invalid(vp.Child("emptyDir", "sizeLimit"), v.EmptyDir.SizeLimit, "must be greater than or equal to 0"))
			}
		}
		if v.HostPath != nil {
			n++
			hp := vp.Child("hostPath", "path")
			switch {
			case v.HostPath.Path == "":
				errs = append(errs, field.Required(hp, ""))
			case !filepath.IsAbs(v.HostPath.Path):
				// podlife's own rule: the API server lets the kubelet resolve a relative path.
				errs = append(errs, field.Invalid(hp, v.HostPath.Path, "must be an absolute path"))
			default:
				errs = append(errs, validateNoBacksteps(hp, v.HostPath.Path)...)
			}
			switch v.HostPath.Type {
			case HostPathUnset, HostPathDirectoryOrCreate, HostPathDirectory, HostPathFileOrCreate, HostPathFile:
			default:
				errs = append(errs, field.NotSupported(vp.Child("hostPath", "type"), v.HostPath.Type,
					[]HostPathType{HostPathUnset, HostPathDirectoryOrCreate, HostPathDirectory, HostPathFileOrCreate, HostPathFile}))
			}
		}
		if v.Files != nil {
			n++
			for j, f := range v.Files.Files {
				errs = append(errs, validateLocalNonReservedPath(vp.Child("files").Index(j).Child("path"), f.Path)...)
			}
		}
		if v.Image != nil {
			n++
			errs = append(errs, validateImageVolume(vp.Child("image"), v.Image)...)
		}
		switch {
		case n == 0:
			errs = append(errs, field.Required(vp, "must specify a volume type (emptyDir, hostPath, files or image)"))
		case n > 1:
			errs = append(errs, field.Forbidden(vp, "may not specify more than 1 volume type"))
		}
	}
	return names, errs
}

// validateImageVolume checks an image volume as the API server does: a reference, a known pull
// policy. The reference must parse (the API server leaves that to the kubelet).
func validateImageVolume(p *field.Path, iv *ImageVolume) field.ErrorList {
	var errs field.ErrorList
	if iv.Reference == "" {
		errs = append(errs, field.Required(p.Child("reference"), ""))
	} else if _, err := reference.ParseDockerRef(iv.Reference); err != nil {
		errs = append(errs, field.Invalid(p.Child("reference"), iv.Reference, err.Error()))
	}
	switch iv.PullPolicy {
	case "", PullAlways, PullIfNotPresent, PullNever:
	default:
		errs = append(errs, field.NotSupported(p.Child("pullPolicy"), iv.PullPolicy,
			[]PullPolicy{PullAlways, PullIfNotPresent, PullNever}))
	}
	return errs
}

func ValidateContainer(p *field.Path, c *ContainerSpec, volumes, names, hostPorts map[string]bool) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateName(p.Child("name"), c.Name)...)
	if c.Name != "" && names[c.Name] {
		errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
	}
	names[c.Name] = true
	if c.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	} else if strings.TrimSpace(c.Image) != c.Image {
		errs = append(errs, field.Invalid(p.Child("image"), c.Image, "must not have leading or trailing whitespace"))
	} else if _, err := reference.ParseDockerRef(c.Image); err != nil {
		// podlife's own rule: the API server leaves a malformed reference to the kubelet,
		// which fails the container with InvalidImageName.
		errs = append(errs, field.Invalid(p.Child("image"), c.Image, err.Error()))
	}
	switch c.ImagePullPolicy {
	case "", PullAlways, PullIfNotPresent, PullNever:
	default:
		errs = append(errs, field.NotSupported(p.Child("imagePullPolicy"), c.ImagePullPolicy,
			[]PullPolicy{PullAlways, PullIfNotPresent, PullNever}))
	}
	for i, e := range c.Env {
		np := p.Child("env").Index(i).Child("name")
		if e.Name == "" {
			errs = append(errs, field.Required(np, ""))
			continue
		}
		// The relaxed rule of the API server and the kubelet since Kubernetes 1.34
		// (RelaxedEnvironmentVariableValidation): printable ASCII but '='.
		for _, msg := range validation.IsRelaxedEnvVarName(e.Name) {
			errs = append(errs, field.Invalid(np, e.Name, msg))
		}
		switch {
		case e.From == "":
		case !slices.Contains(podFields, e.From):
			errs = append(errs, field.NotSupported(p.Child("env").Index(i).Child("from"), e.From, podFields))
		case e.Value != "":
			errs = append(errs, field.Invalid(p.Child("env").Index(i).Child("value"), e.Value, "may not be set with from"))
		}
	}
	if c.WorkingDir != "" && !strings.HasPrefix(c.WorkingDir, "/") {
		errs = append(errs, field.Invalid(p.Child("workingDir"), c.WorkingDir, "must be an absolute path"))
	}
	portNames := map[string]bool{}
	for i, port := range c.Ports {
		pp := p.Child("ports").Index(i)
		if port.Name != "" {
			msgs := validation.IsValidPortName(port.Name)
			for _, msg := range msgs {
				errs = append(errs, field.Invalid(pp.Child("name"), port.Name, msg))
			}
			if len(msgs) == 0 && portNames[port.Name] {
				errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
			}
			portNames[port.Name] = true
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(pp.Child("containerPort"), ""))
		}
		switch port.Protocol {
		case "", ProtocolTCP, ProtocolUDP, ProtocolSCTP:
		default:
			errs = append(errs, field.NotSupported(pp.Child("protocol"), port.Protocol, []Protocol{ProtocolSCTP, ProtocolTCP, ProtocolUDP}))
		}
		if port.HostPort != 0 {
			// The API server's key, and the value it reports: protocol/hostIP/port.
			key := fmt.Sprintf("%s/%s/%d", port.Protocol, port.HostIP, port.HostPort)
			if hostPorts[key] {
				errs = append(errs, field.Duplicate(pp.Child("hostPort"), key))
			}
			hostPorts[key] = true
		}
	}
	paths := map[string]bool{}
	for i, m := range c.VolumeMounts {
		mp := p.Child("volumeMounts").Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(mp.Child("name"), ""))
		}
		if !volumes[m.Name] {
			errs = append(errs, field.NotFound(mp.Child("name"), m.Name))
		}
		switch {
		case m.MountPath == "":
			errs = append(errs, field.Required(mp.Child("mountPath"), ""))
		case paths[m.MountPath]:
			errs = append(errs, field.Invalid(mp.Child("mountPath"), m.MountPath, "must be unique"))
		case !strings.HasPrefix(m.MountPath, "/"):
			// podlife's own rule: the API server leaves a relative path to the runtime.
			errs = append(errs, field.Invalid(mp.Child("mountPath"), m.MountPath, "must be an absolute path"))
		}
		paths[m.MountPath] = true
		if m.SubPath != "" {
			errs = append(errs, validateLocalDescendingPath(mp.Child("subPath"), m.SubPath)...)
		}
	}
	for _, lh := range []struct {
		name string
		h    hook.Handler
	}{{"postStart", c.PostStart}, {"preStop", c.PreStop}} {
		if lh.h == nil {
			continue
		}
		if err := hook.Validate(lh.h); err != nil {
			errs = append(errs, field.Invalid(p.Child("lifecycle", lh.name), hook.Describe(lh.h), err.Error()))
		}
	}
	for _, r := range []struct {
		name string
		v    int64
	}{{"limits.cpu", c.Resources.CPULimit}, {"requests.cpu", c.Resources.CPURequest}, {"limits.memory", c.Resources.MemoryLimit},
		{"limits.ephemeral-storage", c.Resources.EphemeralStorageLimit}} {
		if r.v < 0 {
			errs = append(errs, field.Invalid(p.Child("resources").Child(r.name), r.v, "must be greater than or equal to 0"))
		}
	}
	errs = append(errs, validateResizeFields(p, c)...) // resize.go
	if c.HookTimeout < 0 {
		errs = append(errs, field.Invalid(p.Child("lifecycle", "hookTimeout"), c.HookTimeout.String(), "must be greater than or equal to 0"))
	}
	errs = append(errs, validateTerminationMessage(p, c)...)
	if c.StopSignal < 0 || c.StopSignal > 64 {
		errs = append(errs, field.Invalid(p.Child("lifecycle", "stopSignal"), int(c.StopSignal), "must be a signal number between 1 and 64"))
	}
	return errs
}

// validateLifecycle checks probes and the container-level restart policy.
func validateLifecycle(p *field.Path, c *ContainerSpec, init bool) field.ErrorList {
	var errs field.ErrorList
	sidecar := init && c.RestartPolicy == RestartAlways
	errs = append(errs, validateContainerRestart(p, c, init)...)
	if init && !sidecar && (c.PostStart != nil || c.PreStop != nil || c.StopSignal != 0) {
		errs = append(errs, field.Forbidden(p.Child("lifecycle"), "may not be set for init containers without restartPolicy=Always"))
	}
	for _, pr := range []struct {
		name string
		kind probe.Kind
		spec *probe.Spec
	}{{"startupProbe", probe.Startup, c.StartupProbe}, {"readinessProbe", probe.Readiness, c.ReadinessProbe}, {"livenessProbe", probe.Liveness, c.LivenessProbe}} {
		if pr.spec == nil {
			continue
		}
		pp := p.Child(pr.name)
		if init && !sidecar {
			errs = append(errs, field.Forbidden(pp, "may not be set for init containers without restartPolicy=Always"))
			continue
		}
		var fe *probe.FieldError
		for _, err := range UnwrapJoined(pr.spec.Validate(pr.kind)) {
			switch {
			case err == nil:
			case errors.As(err, &fe) && fe.Value == nil:
				errs = append(errs, field.Required(pp.Child(fe.Field), fe.Detail))
			case errors.As(err, &fe):
				errs = append(errs, field.Invalid(pp.Child(fe.Field), inSeconds(fe.Value), fe.Detail))
			default:
				errs = append(errs, field.Invalid(pp, pr.kind.String(), err.Error()))
			}
		}
	}
	return errs
}

// validateDependencies checks DependsOn: known names, known conditions, no cycles.
func validateDependencies(root *field.Path, s *PodSpec) field.ErrorList {
	var errs field.ErrorList
	deps := map[string][]string{}
	known := map[string]bool{}
	for _, c := range s.allContainers() {
		known[c.Name] = true
	}
	walk := func(list *field.Path, cs []ContainerSpec) {
		for i := range cs {
			c := &cs[i]
			for j, d := range c.DependsOn {
				dp := list.Index(i).Child("dependsOn").Index(j)
				switch {
				case !known[d.Container]:
					errs = append(errs, field.NotFound(dp.Child("container"), d.Container))
				case d.Container == c.Name:
					errs = append(errs, field.Invalid(dp.Child("container"), d.Container, "a container cannot depend on itself"))
				default:
					deps[c.Name] = append(deps[c.Name], d.Container)
				}
				switch d.Condition {
				case "", ContainerStarted, ContainerReady, ContainerCompleted:
				default:
					errs = append(errs, field.NotSupported(dp.Child("condition"), d.Condition,
						[]DependencyCondition{ContainerStarted, ContainerReady, ContainerCompleted}))
				}
			}
		}
	}
	walk(root.Child("initContainers"), s.InitContainers)
	walk(root.Child("containers"), s.Containers)
	if cycle := findCycle(deps); cycle != nil {
		errs = append(errs, field.Invalid(root.Child("containers").Child("dependsOn"), strings.Join(cycle, " -> "), "dependency cycle"))
	}
	return errs
}

// findCycle returns one dependency cycle (its names, first repeated last), or nil.
func findCycle(deps map[string][]string) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(n string) []string
	visit = func(n string) []string {
		switch state[n] {
		case onPath:
			for i, m := range path {
				if m == n {
					return append(append([]string(nil), path[i:]...), n)
				}
			}
		case done:
			return nil
		}
		state[n] = onPath
		path = append(path, n)
		for _, d := range deps[n] {
			if c := visit(d); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return nil
	}
	names := make([]string, 0, len(deps))
	for n := range deps {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if c := visit(n); c != nil {
			return c
		}
	}
	return nil
}

// validateTerminationMessage checks the container's termination message path and policy.
func validateTerminationMessage(p *field.Path, c *ContainerSpec) field.ErrorList {
	var errs field.ErrorList
	if path := c.TerminationMessagePath; path != "" && (!strings.HasPrefix(path, "/") || path == "/") {
		// podlife's own rule, as for mountPath: the file is mounted there.
		errs = append(errs, field.Invalid(p.Child("terminationMessagePath"), path, "must be an absolute path to a file"))
	}
	switch c.TerminationMessagePolicy {
	case "", TerminationMessageReadFile, TerminationMessageFallbackToLogsOnError:
	default:
		errs = append(errs, field.NotSupported(p.Child("terminationMessagePolicy"), c.TerminationMessagePolicy,
			[]TerminationMessagePolicy{TerminationMessageReadFile, TerminationMessageFallbackToLogsOnError}))
	}
	return errs
}
