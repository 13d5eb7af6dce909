package env

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube/internal/expand"
)

// Environment is a container's resolved environment, in the order variables were first
// defined, each with the value it was last given and where that came from.
type Environment struct {
	order []string
	vars  map[string]string
	from  map[string]*field.Path
	// runtime are the variables podlife resolves when it creates the container (the pod's IP,
	// the host's, the pod's UID), by name: their vars entry is empty.
	runtime map[string]podlife.PodField
	// size is what the variables take in the process's environment: NAME=value and a NUL
	// each (see expand.MaxEnvironment).
	size int
}

// Size is what the variables take in the process's environment (see expand.MaxEnvironment).
func (e *Environment) Size() int { return e.size }

func (e *Environment) set(name, value string, from *field.Path) {
	if old, ok := e.vars[name]; ok {
		e.size -= envSize(name, old)
		if _, ok := e.runtime[name]; ok {
			e.size -= maxRuntimeValue
			delete(e.runtime, name)
		}
	} else {
		e.order = append(e.order, name)
	}
	e.vars[name] = value
	e.from[name] = from
	e.size += envSize(name, value)
}

// setRuntime sets name to a field of the running pod, counting maxRuntimeValue for its value.
func (e *Environment) setRuntime(name string, f podlife.PodField, from *field.Path) {
	e.set(name, "", from)
	e.runtime[name] = f
	e.size += maxRuntimeValue
}

// maxRuntimeValue bounds the value of a field of the running pod (two IPv6 addresses and a
// comma; a UID is 36 bytes).
const maxRuntimeValue = 2*len("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255") + 1

// Lookup looks a variable of e up for a $(VAR) reference at p. A variable podlife resolves only
// when it creates the container cannot be expanded into another string: that is reported at
// p, and the reference stays as written.
func (c *Resolver) Lookup(p *field.Path, e *Environment) func(string) (string, bool) {
	vars, runtime := e.vars, e.runtime
	return func(name string) (string, bool) {
		if f, ok := runtime[name]; ok {
			c.is.Errorf(p, "Unsupported value: $(%s): the variable is %s, which podlife resolves only when it creates the container: it can be read from the environment, but not expanded in another value, command, args or subPathExpr", name, f)
			return "", false
		}
		if v, ok := vars[name]; ok {
			return v, true
		}
		v, ok := c.pod.ServiceEnv[name] // the kubelet's MappingFuncFor(env, serviceEnv)
		return v, ok
	}
}

// room is the longest value name may be set to within expand.MaxEnvironment.
func (e *Environment) room(name string) int {
	size := e.size
	if old, ok := e.vars[name]; ok {
		size -= envSize(name, old)
	}
	return expand.MaxEnvironment - size - envSize(name, "")
}

func envSize(name, value string) int { return len(name) + 1 + len(value) + 1 }

// Env resolves a container's environment as the kubelet does (makeEnvironmentVariables):
// envFrom sources first, in order, then env entries in order, later definitions winning.
// A literal value has its $(VAR) references expanded with the variables defined before it;
// a value from a reference is taken as is. pl is the container's path in podlife's
// validation.
//
// Values are held to expand.MaxString, and the environment to expand.MaxEnvironment,
// while they are expanded. The size of the environment is returned too. stopped tells that a
// value went over a limit (reported): what follows it was not resolved, and the container's
// command and args are not to be expanded either. (Going on would only report the same
// bomb again: a reference to a variable left unset stays as written, and doubles as well.)
func (c *Resolver) Env(ct *corev1.Container, p *field.Path, pl string) (list []podlife.EnvVar, e *Environment, stopped bool) {
	e = &Environment{vars: map[string]string{}, from: map[string]*field.Path{}, runtime: map[string]podlife.PodField{}}
	for j := range ct.EnvFrom {
		if !c.envFrom(&ct.EnvFrom[j], p.Child("envFrom").Index(j), e) {
			return nil, e, true
		}
	}
	for j, ev := range ct.Env {
		ep := p.Child("env").Index(j)
		switch {
		case ev.Name == "":
			c.is.Field(field.Required(ep.Child("name"), ""))
		case len(validation.IsRelaxedEnvVarName(ev.Name)) > 0:
			for _, msg := range validation.IsRelaxedEnvVarName(ev.Name) {
				c.is.Field(field.Invalid(ep.Child("name"), ev.Name, msg))
			}
		case ev.ValueFrom == nil:
			v, hit := c.x.At(ep.Child("value"), ev.Value, c.Lookup(ep.Child("value"), e), e.room(ev.Name))
			if hit != expand.Fits {
				return nil, e, true
			}
			e.set(ev.Name, v, ep)
		case ev.Value != "":
			c.is.Field(field.Invalid(ep.Child("valueFrom"), "", "may not be specified when `value` is not empty"))
		default:
			v, from, ok := c.valueFrom(ct, ev.ValueFrom, ep.Child("valueFrom"))
			switch {
			case !ok:
				continue
			case from != "":
				if !c.fitsEnv(ep.Child("valueFrom"), e, ev.Name, strings.Repeat("x", maxRuntimeValue)) {
					return nil, e, true
				}
				e.setRuntime(ev.Name, from, ep)
				continue
			}
			if !c.fitsEnv(ep.Child("valueFrom"), e, ev.Name, v) {
				return nil, e, true
			}
			e.set(ev.Name, v, ep)
		}
	}
	// The Service variables come last, those the container defines itself excepted (the
	// kubelet's makeEnvironmentVariables), in name order.
	for _, name := range slices.Sorted(maps.Keys(c.pod.ServiceEnv)) {
		if _, ok := e.vars[name]; ok {
			continue
		}
		v := c.pod.ServiceEnv[name]
		if !c.fitsEnv(p, e, name, v) {
			return nil, e, true
		}
		e.set(name, v, nil)
	}
	for i, name := range e.order {
		list = append(list, podlife.EnvVar{Name: name, Value: e.vars[name], From: e.runtime[name]})
		if from := e.from[name]; from != nil {
			c.pod.MapPath(fmt.Sprintf("%s.env[%d]", pl, i), from)
		}
	}
	return list, e, false
}

// fitsEnv checks a value read from a ConfigMap, a Secret or the pod (not expanded) against
// expand.MaxString and the environment's room, and reports at p what it exceeds.
func (c *Resolver) fitsEnv(p *field.Path, e *Environment, name, value string) bool {
	var hit expand.Overrun
	switch {
	case len(value) > expand.MaxString:
		hit = expand.StringTooLong
	case len(value) > e.room(name):
		hit = expand.ContainerTooBig
	default:
		return true
	}
	c.is.Errorf(p, "Too long: %s", hit.Message(false))
	return false
}

// envFrom adds the keys of a ConfigMap or Secret to e. It returns false when a value went
// over a limit (reported).
func (c *Resolver) envFrom(ef *corev1.EnvFromSource, p *field.Path, e *Environment) bool {
	var (
		data     map[string]string
		optional *bool
		name     string
		kind     string
		np       *field.Path
	)
	switch {
	case ef.ConfigMapRef != nil && ef.SecretRef != nil:
		c.is.Field(field.Invalid(p, "", "may not have more than one field specified at a time"))
		return true
	case ef.ConfigMapRef != nil:
		name, optional, kind, np = ef.ConfigMapRef.Name, ef.ConfigMapRef.Optional, "ConfigMap", p.Child("configMapRef", "name")
		if cm := c.pod.ConfigMap(name); cm != nil {
			data = cm.Data // the kubelet takes data only, not binaryData
		}
	case ef.SecretRef != nil:
		name, optional, kind, np = ef.SecretRef.Name, ef.SecretRef.Optional, "Secret", p.Child("secretRef", "name")
		data = c.pod.SecretData(name)
	default:
		// The API server reports it at the envFrom list; the entry's index is kept here.
		c.is.Field(field.Invalid(p, "", "must specify one of: `configMapRef` or `secretRef`"))
		return true
	}
	if ef.Prefix != "" {
		msgs := validation.IsRelaxedEnvVarName(ef.Prefix)
		for _, msg := range msgs {
			c.is.Field(field.Invalid(p.Child("prefix"), ef.Prefix, msg))
		}
		if len(msgs) > 0 {
			return true
		}
	}
	// The API server's name rule (ValidateConfigMapName, ValidateSecretName as prefixes).
	msgs := apivalidation.NameIsDNSSubdomain(name, true)
	switch {
	case name == "":
		c.is.Field(field.Required(np, ""))
		return true
	case len(msgs) > 0:
		for _, msg := range msgs {
			c.is.Field(field.Invalid(np, name, msg))
		}
		return true
	case data == nil && (optional == nil || !*optional):
		c.is.Errorf(np, "Not found: %q: no such %s given with the pod", name, kind)
		return true
	}
	var invalid []string
	for _, k := range slices.Sorted(maps.Keys(data)) {
		n := ef.Prefix + k
		// The kubelet's rule since Kubernetes 1.34 (RelaxedEnvironmentVariableValidation).
		if len(validation.IsRelaxedEnvVarName(n)) > 0 {
			invalid = append(invalid, n)
			continue
		}
		if !c.fitsEnv(p, e, n, data[k]) {
			return false
		}
		e.set(n, data[k], p)
	}
	if len(invalid) > 0 {
		c.is.Warnf(p, "Not honoured: %s %q: keys %q are not valid environment variable names and are skipped", kind, name, invalid)
	}
	return true
}

// valueFrom resolves an env valueFrom of container ct, or names the field of the running pod
// it is (from). It returns false when the variable is not to be set: an error, or an optional
// reference to something missing.
func (c *Resolver) valueFrom(ct *corev1.Container, vf *corev1.EnvVarSource, p *field.Path) (v string, from podlife.PodField, ok bool) {
	n := 0
	for _, set := range []bool{vf.FieldRef != nil, vf.ResourceFieldRef != nil, vf.ConfigMapKeyRef != nil,
		vf.SecretKeyRef != nil, vf.FileKeyRef != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		c.is.Field(field.Invalid(p, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
		return "", "", false
	case n > 1:
		c.is.Field(field.Invalid(p, "", "may not have more than one field specified at a time"))
		return "", "", false
	}
	switch {
	case vf.FieldRef != nil:
		return c.FieldRef(p.Child("fieldRef"), vf.FieldRef, false)
	case vf.ResourceFieldRef != nil:
		v, ok := c.ResourceFieldRef(p.Child("resourceFieldRef"), vf.ResourceFieldRef, ct)
		return v, "", ok
	case vf.ConfigMapKeyRef != nil:
		r, rp := vf.ConfigMapKeyRef, p.Child("configMapKeyRef")
		var data map[string]string
		if cm := c.pod.ConfigMap(r.Name); cm != nil {
			data = cm.Data
		}
		v, ok := c.keyRef(rp, "ConfigMap", r.Name, r.Key, r.Optional, data != nil, func(k string) (string, bool) {
			v, ok := data[k]
			return v, ok
		})
		return v, "", ok
	case vf.SecretKeyRef != nil:
		r, rp := vf.SecretKeyRef, p.Child("secretKeyRef")
		var data map[string]string
		data = c.pod.SecretData(r.Name)
		v, ok := c.keyRef(rp, "Secret", r.Name, r.Key, r.Optional, data != nil, func(k string) (string, bool) {
			v, ok := data[k]
			return v, ok
		})
		return v, "", ok
	}
	return "", "", false // fileKeyRef: reported by the field rules
}

// keyRef resolves a configMapKeyRef or secretKeyRef.
func (c *Resolver) keyRef(p *field.Path, kind, name, key string, optional *bool, found bool,
	get func(string) (string, bool)) (string, bool) {
	opt := optional != nil && *optional
	// The API server's checks (validateConfigMapKeySelector, validateSecretKeySelector)
	// come before the lookup.
	bad := false
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		c.is.Field(field.Invalid(p.Child("name"), name, msg))
		bad = true
	}
	if key == "" {
		c.is.Field(field.Required(p.Child("key"), ""))
		bad = true
	}
	for _, msg := range validation.IsConfigMapKey(key) {
		if key != "" {
			c.is.Field(field.Invalid(p.Child("key"), key, msg))
			bad = true
		}
	}
	switch {
	case bad:
		return "", false
	case !found:
		if !opt {
			c.is.Errorf(p.Child("name"), "Not found: %q: no such %s given with the pod", name, kind)
		}
		return "", false
	}
	v, ok := get(key)
	if !ok && !opt {
		c.is.Errorf(p.Child("key"), "Not found: %q: no such key in %s %q", key, kind, name)
	}
	return v, ok
}

// FieldRef resolves a downward API field of the pod, as the kubelet does
// (podFieldSelectorRuntimeValue). The pod's name, namespace, labels, annotations, service
// account and node are known before it runs, and so is the UID of an API object (a manifest's
// pod gets podlife's UID); its IPs and the host's are resolved by podlife when it creates the
// container: from names that field. volume selects the fields a downwardAPI volume may use
// (whole label and annotation maps, the UID when known) over those of env.
func (c *Resolver) FieldRef(p *field.Path, ref *corev1.ObjectFieldSelector, volume bool) (v string, from podlife.PodField, ok bool) {
	fp := p.Child("fieldPath")
	// The API server converts the path first (ConvertDownwardAPIFieldLabel), with these
	// errors.
	path, key, subscripted := splitSubscript(ref.FieldPath)
	var convErr string
	switch {
	case ref.FieldPath == "":
		c.is.Field(field.Required(fp, ""))
		return "", "", false
	case ref.APIVersion != "" && ref.APIVersion != "v1":
		convErr = "unsupported pod version: " + ref.APIVersion
	case subscripted && path != "metadata.labels" && path != "metadata.annotations":
		convErr = "field label does not support subscript: " + ref.FieldPath
	case !subscripted && !slices.Contains(downwardFieldLabels, path):
		convErr = "field label not supported: " + ref.FieldPath
	}
	if convErr != "" {
		c.is.Field(field.Invalid(fp, ref.FieldPath, "error converting fieldPath: "+convErr))
		return "", "", false
	}
	if path == "spec.host" { // an old client's name for spec.nodeName
		path = "spec.nodeName"
	}
	if subscripted {
		// The API server's wording and path (validateObjectFieldSelector): at fieldRef,
		// naming the key (lowercased for an annotation, whose keys ignore case).
		check := key
		switch path {
		case "metadata.labels":
		case "metadata.annotations":
			check = strings.ToLower(key)
		}
		msgs := validation.IsQualifiedName(check)
		for _, msg := range msgs {
			c.is.Field(field.Invalid(p, check, msg))
		}
		switch {
		case len(msgs) > 0:
			return "", "", false
		case path == "metadata.labels":
			return c.pod.Labels[key], "", true
		default:
			return c.pod.Annotations[key], "", true
		}
	}
	switch path {
	case "metadata.name":
		return c.pod.Name, "", true
	case "metadata.namespace":
		return c.pod.Namespace, "", true
	case "metadata.labels":
		if volume {
			return formatMap(c.pod.Labels), "", true
		}
	case "metadata.annotations":
		if volume {
			return formatMap(c.pod.Annotations), "", true
		}
	case "metadata.uid":
		switch {
		case c.pod.UID != "": // an API object's (podlife-node's pods)
			return c.pod.UID, "", true
		case !volume:
			return "", podlife.PodField("metadata.uid"), true
		}
		// A volume's files are written before podlife gives the pod its UID.
		c.is.Errorf(fp, "Unsupported value: %q: a manifest's pod has no UID before it runs, and podlife writes a downwardAPI volume before: read it from env instead", ref.FieldPath)
		return "", "", false
	case "spec.serviceAccountName":
		if !volume {
			sa := c.pod.Spec.ServiceAccountName
			if sa == "" {
				sa = c.pod.Spec.DeprecatedServiceAccount
			}
			if sa == "" {
				sa = "default"
			}
			return sa, "", true
		}
	case "spec.nodeName":
		if !volume {
			return c.nodeName(fp)
		}
	case "status.podIP", "status.podIPs", "status.hostIP", "status.hostIPs":
		if !volume {
			return "", podlife.PodField(path), true
		}
	}
	// A path the API server refuses too: its message, with its list.
	supported := []string{"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
		"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}
	if volume {
		supported = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"}
	}
	c.is.Field(field.NotSupported(fp, path, supported))
	return "", "", false
}

// nodeName is the pod's spec.nodeName, or where it names none (a manifest), Pod.NodeName
// or this host's name in lower case: the kubelet's default node name.
func (c *Resolver) nodeName(fp *field.Path) (string, podlife.PodField, bool) {
	if n := cmp.Or(c.pod.Spec.NodeName, c.pod.NodeName); n != "" {
		return n, "", true
	}
	h, err := os.Hostname()
	if err != nil {
		c.is.Errorf(fp, "Internal error: spec.nodeName: the host's name: %v", err)
		return "", "", false
	}
	return strings.ToLower(h), "", true
}

// downwardFieldLabels are the pod fields the API server's downward API knows at all.
var downwardFieldLabels = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
	"metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
	"status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs", "spec.host"}

// splitSubscript splits "metadata.labels['key']" into its path and key.
func splitSubscript(fp string) (path, key string, ok bool) {
	if !strings.HasSuffix(fp, "']") {
		return fp, "", false
	}
	i := strings.Index(fp, "['")
	if i < 0 || i+2 > len(fp)-2 {
		return fp, "", false
	}
	return fp[:i], fp[i+2 : len(fp)-2], true
}

// formatMap formats labels or annotations as the kubelet writes them in a downwardAPI file:
// sorted key="value" lines.
func formatMap(m map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s=%q", k, m[k])
	}
	return b.String()
}
