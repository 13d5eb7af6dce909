package api

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ContainerRestartRule restarts a container, whatever its restart policy says, when its exit
// matches (Kubernetes' ContainerRestartRule, the ContainerRestartRules feature).
type ContainerRestartRule struct {
	// Action is what a match does: Restart, or RestartAllContainers.
	Action ContainerRestartRuleAction
	// ExitCodes matches the container's exit code; required.
	ExitCodes *ContainerRestartRuleOnExitCodes
}

// ContainerRestartRuleAction is what a matching restart rule does.
type ContainerRestartRuleAction string

// RestartRuleActionRestart restarts the container.
const RestartRuleActionRestart ContainerRestartRuleAction = "Restart"

// RestartRuleActionRestartAllContainers restarts the whole pod in place (Kubernetes'
// RestartAllContainersOnContainerExits): every container is stopped, then the init containers
// run again in order and the others start, the sandbox kept (see RestartsAll).
const RestartRuleActionRestartAllContainers ContainerRestartRuleAction = "RestartAllContainers"

// AllContainersRestarting is the pod condition of a restart of all its containers (Kubernetes'
// AllContainersRestarting): True while they are stopped, False once they are stopped and start
// again. A pod has it from its first restart of all.
const AllContainersRestarting ConditionType = "AllContainersRestarting"

// ReasonRestartAllContainersStarted is the reason of AllContainersRestarting while it is True.
const ReasonRestartAllContainersStarted Reason = "RestartAllContainersStarted"

// ContainerRestartRuleOnExitCodes matches an exit code against a set.
type ContainerRestartRuleOnExitCodes struct {
	// Operator is In (the code is one of Values) or NotIn (it is none of them).
	Operator ContainerRestartRuleOnExitCodesOperator
	// Values are the exit codes; empty matches nothing for In and every code for NotIn.
	Values []int32
}

// ContainerRestartRuleOnExitCodesOperator relates an exit code to a rule's values.
type ContainerRestartRuleOnExitCodesOperator string

// Exit-code operators.
const (
	RestartRuleOpIn    ContainerRestartRuleOnExitCodesOperator = "In"
	RestartRuleOpNotIn ContainerRestartRuleOnExitCodesOperator = "NotIn"
)

// matches reports whether the rule applies to exit code code.
func (r *ContainerRestartRule) matches(code int) bool {
	if r.ExitCodes == nil {
		return false
	}
	in := slices.Contains(r.ExitCodes.Values, int32(code))
	switch r.ExitCodes.Operator {
	case RestartRuleOpIn:
		return in
	case RestartRuleOpNotIn:
		return !in
	}
	return false
}

// RestartsAfter reports whether container c, which exited with code, is restarted, as the
// kubelet's ContainerShouldRestart decides it: with a container-level RestartPolicy, the first
// of its RestartPolicyRules that matches the code decides (Restart restarts), else that policy;
// without one, the pod's policy (empty: Always). Callers handle sidecars (restarted always) and
// init containers (only a failed one is considered) themselves.
func RestartsAfter(c *ContainerSpec, pod RestartPolicy, code int) bool {
	policy := pod
	if c.RestartPolicy != "" {
		for i := range c.RestartPolicyRules {
			if r := &c.RestartPolicyRules[i]; r.matches(code) {
				if r.Action == RestartRuleActionRestart || r.Action == RestartRuleActionRestartAllContainers {
					return true // RestartAllContainers restarts it with the others (RestartsAll)
				}
				break
			}
		}
		policy = c.RestartPolicy
	}
	switch policy {
	case RestartNever:
		return false
	case RestartOnFailure:
		return code != 0
	default:
		return true
	}
}

// Restartable reports whether container c may ever restart under pod policy pod (the
// kubelet's IsContainerRestartable): a Restart rule, or a policy other than Never.
func Restartable(c *ContainerSpec, pod RestartPolicy) bool {
	if c.RestartPolicy == "" {
		return pod != RestartNever
	}
	for _, r := range c.RestartPolicyRules {
		if r.Action == RestartRuleActionRestart || r.Action == RestartRuleActionRestartAllContainers {
			return true
		}
	}
	return c.RestartPolicy != RestartNever
}

// Limits of the API server's validation of restart rules.
const (
	maxRestartRules      = 20
	maxRestartRuleValues = 255
)

// validateContainerRestart checks a container's own restartPolicy and restartPolicyRules as the
// API server does with ContainerRestartRules on (validateContainerRestartPolicy and
// validateInitContainerRestartPolicy).
func validateContainerRestart(p *field.Path, c *ContainerSpec, init bool) field.ErrorList {
	var errs field.ErrorList
	rp := p.Child("restartPolicy")
	switch {
	case c.RestartPolicy == "":
		if len(c.RestartPolicyRules) > 0 {
			errs = append(errs, field.Required(rp, "must specify restartPolicy when restart rules are used"))
		}
		if init {
			return errs
		}
	case init && c.RestartPolicy == RestartAlways:
		// A sidecar's rules are checked as the others' (the API server with
		// RestartAllContainersOnContainerExits on).
	case c.RestartPolicy != RestartAlways && c.RestartPolicy != RestartOnFailure && c.RestartPolicy != RestartNever:
		errs = append(errs, field.NotSupported(rp, c.RestartPolicy, []RestartPolicy{RestartAlways, RestartNever, RestartOnFailure}))
	}
	rules := p.Child("restartPolicyRules")
	if len(c.RestartPolicyRules) > maxRestartRules {
		errs = append(errs, field.TooMany(rules, len(c.RestartPolicyRules), maxRestartRules))
	}
	for i, r := range c.RestartPolicyRules {
		ip := rules.Index(i)
		if r.Action != RestartRuleActionRestart && r.Action != RestartRuleActionRestartAllContainers {
			errs = append(errs, field.NotSupported(ip.Child("action"), r.Action, []ContainerRestartRuleAction{RestartRuleActionRestart, RestartRuleActionRestartAllContainers}))
		}
		if r.ExitCodes == nil {
			errs = append(errs, field.Required(ip.Child("exitCodes"), "must be specified"))
			continue
		}
		ep := ip.Child("exitCodes")
		if r.ExitCodes.Operator != RestartRuleOpIn && r.ExitCodes.Operator != RestartRuleOpNotIn {
			errs = append(errs, field.NotSupported(ep.Child("operator"), r.ExitCodes.Operator,
				[]ContainerRestartRuleOnExitCodesOperator{RestartRuleOpIn, RestartRuleOpNotIn}))
		}
		if len(r.ExitCodes.Values) > maxRestartRuleValues {
			errs = append(errs, field.TooMany(ep.Child("values"), len(r.ExitCodes.Values), maxRestartRuleValues))
		}
	}
	return errs
}

// RestartsAll reports whether the container's exit with code restarts the whole pod in place:
// the first of its RestartPolicyRules that matches the code has the action
// RestartAllContainers (Kubernetes' RestartAllContainersOnContainerExits).
func (c *ContainerSpec) RestartsAll(code int) bool {
	for i := range c.RestartPolicyRules {
		if r := &c.RestartPolicyRules[i]; r.matches(code) {
			return r.Action == RestartRuleActionRestartAllContainers
		}
	}
	return false
}
