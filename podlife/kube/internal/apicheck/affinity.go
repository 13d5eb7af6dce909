package apicheck

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateAffinity checks spec.affinity, a field podlife drops with a warning, as the API
// server does (validateAffinity, validateNodeAffinity, ValidateNodeSelector,
// ValidatePreferredSchedulingTerms, validatePodAffinityTerm), so that a manifest it would
// refuse is refused here too. Label values in required node affinity and selectors are
// checked strictly, as for a new pod; matchLabelKeys and mismatchLabelKeys are not checked.
func (c *checker) validateAffinity(a *corev1.Affinity, p *field.Path) {
	if a == nil {
		return
	}
	if na := a.NodeAffinity; na != nil {
		np := p.Child("nodeAffinity")
		if ns := na.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
			tp := np.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
			if len(ns.NodeSelectorTerms) == 0 {
				c.is.Field(field.Required(tp, "must have at least one node selector term"))
			}
			for i := range ns.NodeSelectorTerms {
				c.nodeSelectorTerm(&ns.NodeSelectorTerms[i], false, tp.Index(i))
			}
		}
		pp := np.Child("preferredDuringSchedulingIgnoredDuringExecution")
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			c.weight(t.Weight, pp.Index(i).Child("weight"))
			// Invalid label values are allowed in preferences (they may still match).
			c.nodeSelectorTerm(&t.Preference, true, pp.Index(i).Child("preference"))
		}
	}
	for _, pa := range []struct {
		name      string
		required  []corev1.PodAffinityTerm
		preferred []corev1.WeightedPodAffinityTerm
	}{
		{"podAffinity", podAffinityRequired(a.PodAffinity), podAffinityPreferred(a.PodAffinity)},
		{"podAntiAffinity", podAntiAffinityRequired(a.PodAntiAffinity), podAntiAffinityPreferred(a.PodAntiAffinity)},
	} {
		ap := p.Child(pa.name)
		for i := range pa.required {
			c.podAffinityTerm(&pa.required[i], ap.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))
		}
		for i := range pa.preferred {
			wp := ap.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			c.weight(pa.preferred[i].Weight, wp.Child("weight"))
			c.podAffinityTerm(&pa.preferred[i].PodAffinityTerm, wp.Child("podAffinityTerm"))
		}
	}
}

func podAffinityRequired(a *corev1.PodAffinity) []corev1.PodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.RequiredDuringSchedulingIgnoredDuringExecution
}

func podAffinityPreferred(a *corev1.PodAffinity) []corev1.WeightedPodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.PreferredDuringSchedulingIgnoredDuringExecution
}

func podAntiAffinityRequired(a *corev1.PodAntiAffinity) []corev1.PodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.RequiredDuringSchedulingIgnoredDuringExecution
}

func podAntiAffinityPreferred(a *corev1.PodAntiAffinity) []corev1.WeightedPodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.PreferredDuringSchedulingIgnoredDuringExecution
}

// weight checks a scheduling term's weight.
func (c *checker) weight(w int32, p *field.Path) {
	if w <= 0 || w > 100 {
		c.is.Field(field.Invalid(p, w, "must be in the range 1-100"))
	}
}

// nodeSelectorTerm checks a node selector term (ValidateNodeSelectorTerm).
func (c *checker) nodeSelectorTerm(t *corev1.NodeSelectorTerm, anyValue bool, p *field.Path) {
	for j, rq := range t.MatchExpressions {
		rp := p.Child("matchExpressions").Index(j)
		switch rq.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(rq.Values) == 0 {
				c.is.Field(field.Required(rp.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
			if len(rq.Values) > 0 {
				c.is.Field(field.Forbidden(rp.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
			if len(rq.Values) != 1 {
				c.is.Field(field.Required(rp.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
			}
		default:
			c.is.Field(field.Invalid(rp.Child("operator"), rq.Operator, "not a valid selector operator"))
		}
		for _, fe := range metavalidation.ValidateLabelName(rq.Key, rp.Child("key")) {
			c.is.Field(fe)
		}
		if !anyValue {
			for k, v := range rq.Values {
				for _, msg := range validation.IsValidLabelValue(v) {
					c.is.Field(field.Invalid(rp.Child("values").Index(k), v, msg))
				}
			}
		}
	}
	for j, rq := range t.MatchFields {
		rp := p.Child("matchFields").Index(j)
		switch rq.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(rq.Values) != 1 {
				c.is.Field(field.Required(rp.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			c.is.Field(field.Invalid(rp.Child("operator"), rq.Operator, "not a valid selector operator"))
		}
		if rq.Key != "metadata.name" {
			c.is.Field(field.Invalid(rp.Child("key"), rq.Key, "not a valid field selector key"))
			continue
		}
		for k, v := range rq.Values {
			for _, msg := range apivalidation.NameIsDNSSubdomain(v, false) {
				c.is.Field(field.Invalid(rp.Child("values").Index(k), v, msg))
			}
		}
	}
}

// podAffinityTerm checks a pod (anti-)affinity term (validatePodAffinityTerm).
func (c *checker) podAffinityTerm(t *corev1.PodAffinityTerm, p *field.Path) {
	opts := metavalidation.LabelSelectorValidationOptions{}
	for _, fe := range metavalidation.ValidateLabelSelector(t.LabelSelector, opts, p.Child("labelSelector")) {
		c.is.Field(fe)
	}
	for _, fe := range metavalidation.ValidateLabelSelector(t.NamespaceSelector, opts, p.Child("namespaceSelector")) {
		c.is.Field(fe)
	}
	for _, ns := range t.Namespaces {
		for _, msg := range apivalidation.ValidateNamespaceName(ns, false) {
			c.is.Field(field.Invalid(p.Child("namespace"), ns, msg))
		}
	}
	if t.TopologyKey == "" {
		c.is.Field(field.Required(p.Child("topologyKey"), "can not be empty"))
	}
	for _, fe := range metavalidation.ValidateLabelName(t.TopologyKey, p.Child("topologyKey")) {
		c.is.Field(fe)
	}
}

// validateTopologySpread checks spec.topologySpreadConstraints, a field podlife drops with a
// warning, as the API server does (validateTopologySpreadConstraints, validateMinDomains,
// ValidateSpreadConstraintNotRepeat, validateNodeInclusionPolicy); matchLabelKeys are not
// checked.
func (c *checker) validateTopologySpread(cs []corev1.TopologySpreadConstraint, p *field.Path) {
	for i, t := range cs {
		tp := p.Index(i)
		if t.MaxSkew <= 0 {
			c.is.Field(field.Invalid(tp.Child("maxSkew"), int64(t.MaxSkew), "must be greater than zero"))
		}
		if t.TopologyKey == "" {
			c.is.Field(field.Required(tp.Child("topologyKey"), "can not be empty"))
		}
		switch t.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			c.is.Field(field.NotSupported(tp.Child("whenUnsatisfiable"), t.WhenUnsatisfiable,
				[]corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}))
		}
		for _, later := range cs[i+1:] {
			if t.TopologyKey == later.TopologyKey && t.WhenUnsatisfiable == later.WhenUnsatisfiable {
				c.is.Field(field.Duplicate(tp.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", t.TopologyKey, t.WhenUnsatisfiable)))
				break
			}
		}
		if md := t.MinDomains; md != nil {
			if *md <= 0 {
				c.is.Field(field.Invalid(tp.Child("minDomains"), int64(*md), "must be greater than zero"))
			}
			if t.WhenUnsatisfiable != corev1.DoNotSchedule {
				c.is.Field(field.Invalid(tp.Child("minDomains"), md,
					fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, t.WhenUnsatisfiable)))
			}
		}
		for _, np := range []struct {
			name   string
			policy *corev1.NodeInclusionPolicy
		}{{"nodeAffinityPolicy", t.NodeAffinityPolicy}, {"nodeTaintsPolicy", t.NodeTaintsPolicy}} {
			if np.policy != nil && *np.policy != corev1.NodeInclusionPolicyHonor && *np.policy != corev1.NodeInclusionPolicyIgnore {
				c.is.Field(field.NotSupported(tp.Child(np.name), np.policy,
					[]corev1.NodeInclusionPolicy{corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore}))
			}
		}
		for _, fe := range metavalidation.ValidateLabelSelector(t.LabelSelector, metavalidation.LabelSelectorValidationOptions{}, tp.Child("labelSelector")) {
			c.is.Field(fe)
		}
	}
}
