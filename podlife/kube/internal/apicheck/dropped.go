package apicheck

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// checker reports what it finds to is.
type checker struct{ is *report.List }

// Dropped checks the fields podlife ignores or drops with a warning as the API server
// does (pkg/apis/core/validation: ValidatePodSpec, validateContainerCommon,
// validatePodSpecSecurityContext, validateResizePolicy): a manifest it would refuse is
// refused here too, with its wording, rather than run.
func Dropped(s *corev1.PodSpec, sp *field.Path, is *report.List) {
	c := &checker{is: is}
	subdomain := func(p *field.Path, v string) {
		if v == "" {
			return
		}
		for _, msg := range apivalidation.NameIsDNSSubdomain(v, false) {
			c.is.Field(field.Invalid(p, v, msg))
		}
	}
	subdomain(sp.Child("serviceAccountName"), s.ServiceAccountName)
	subdomain(sp.Child("nodeName"), s.NodeName)
	subdomain(sp.Child("priorityClassName"), s.PriorityClassName)
	if s.Subdomain != "" {
		for _, msg := range validation.IsDNS1123Label(s.Subdomain) {
			c.is.Field(field.Invalid(sp.Child("subdomain"), s.Subdomain, msg))
		}
	}
	for _, fe := range metavalidation.ValidateLabels(s.NodeSelector, sp.Child("nodeSelector")) {
		c.is.Field(fe)
	}
	for i := range s.Tolerations {
		c.validateToleration(&s.Tolerations[i], sp.Child("tolerations").Index(i))
	}
	c.validateAffinity(s.Affinity, sp.Child("affinity"))
	c.validateTopologySpread(s.TopologySpreadConstraints, sp.Child("topologySpreadConstraints"))
	if pp := s.PreemptionPolicy; pp != nil {
		switch *pp {
		case corev1.PreemptLowerPriority, corev1.PreemptNever:
		case "":
			c.is.Field(field.Required(sp.Child("preemptionPolicy"), ""))
		default:
			c.is.Field(field.NotSupported(sp.Child("preemptionPolicy"), *pp, []corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever}))
		}
	}
	if sc := s.SecurityContext; sc != nil && sc.FSGroupChangePolicy != nil {
		switch *sc.FSGroupChangePolicy {
		case corev1.FSGroupChangeAlways, corev1.FSGroupChangeOnRootMismatch:
		default:
			c.is.Field(field.NotSupported(sp.Child("securityContext", "fsGroupChangePolicy"), *sc.FSGroupChangePolicy,
				[]corev1.PodFSGroupChangePolicy{corev1.FSGroupChangeAlways, corev1.FSGroupChangeOnRootMismatch}))
		}
	}
	for _, list := range []struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", s.InitContainers}, {"containers", s.Containers}} {
		for i := range list.cs {
			c.validateDroppedContainer(&list.cs[i], sp.Child(list.name).Index(i), s.RestartPolicy)
		}
	}
}

// validateToleration checks a toleration as the API server does (ValidateTolerations, with
// the numeric operators Lt and Gt behind their feature gate, off by default).
func (c *checker) validateToleration(t *corev1.Toleration, p *field.Path) {
	if t.Key != "" {
		for _, fe := range metavalidation.ValidateLabelName(t.Key, p.Child("key")) {
			c.is.Field(fe)
		}
	}
	if t.Key == "" && t.Operator != corev1.TolerationOpExists {
		c.is.Field(field.Invalid(p.Child("operator"), t.Operator,
			"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
	}
	if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
		c.is.Field(field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
	}
	switch t.Operator {
	case corev1.TolerationOpEqual, "":
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			c.is.Field(field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
		}
	case corev1.TolerationOpExists:
		if t.Value != "" {
			c.is.Field(field.Invalid(p.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
		}
	case corev1.TolerationOpLt, corev1.TolerationOpGt:
		c.is.Field(field.NotSupported(p.Child("operator"), t.Operator, []corev1.TolerationOperator{corev1.TolerationOpEqual,
			corev1.TolerationOpExists, corev1.TolerationOpLt, corev1.TolerationOpGt}))
	default:
		c.is.Field(field.NotSupported(p.Child("operator"), t.Operator, []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
	}
	switch t.Effect {
	case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
	default:
		c.is.Field(field.NotSupported(p.Child("effect"), t.Effect, []corev1.TaintEffect{corev1.TaintEffectNoSchedule,
			corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
	}
}

// validateDroppedContainer checks a container's terminationMessagePolicy and resizePolicy.
func (c *checker) validateDroppedContainer(ct *corev1.Container, p *field.Path, podRestart corev1.RestartPolicy) {
	switch ct.TerminationMessagePolicy {
	case "", corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError:
	default:
		c.is.Field(field.NotSupported(p.Child("terminationMessagePolicy"), ct.TerminationMessagePolicy,
			[]corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError}))
	}
	// The API server reports these at the list (not at the entry), but for a duplicate.
	rp := p.Child("resizePolicy")
	seen := map[corev1.ResourceName]bool{}
	for i, r := range ct.ResizePolicy {
		if seen[r.ResourceName] {
			c.is.Field(field.Duplicate(rp.Index(i), r.ResourceName))
		}
		seen[r.ResourceName] = true
		switch r.ResourceName {
		case corev1.ResourceCPU, corev1.ResourceMemory:
		case "":
			c.is.Field(field.Required(rp, ""))
		default:
			c.is.Field(field.NotSupported(rp, r.ResourceName, []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}))
		}
		switch r.RestartPolicy {
		case corev1.NotRequired, corev1.RestartContainer:
		case "":
			c.is.Field(field.Required(rp, ""))
		default:
			c.is.Field(field.NotSupported(rp, r.RestartPolicy, []corev1.ResourceResizeRestartPolicy{corev1.NotRequired, corev1.RestartContainer}))
		}
		if podRestart == corev1.RestartPolicyNever && r.RestartPolicy != corev1.NotRequired {
			c.is.Field(field.Invalid(rp, r.RestartPolicy, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
		}
	}
}
