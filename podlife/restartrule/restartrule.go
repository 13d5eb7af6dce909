package restartrule

import "github.com/podlife/podlife/podlife/internal/api"

// Rule restarts a container on a matching exit code (Kubernetes' ContainerRestartRule): Action
// is what a match does, ExitCodes (required) what matches. Its fields are documented at
// [api.ContainerRestartRule].
type Rule = api.ContainerRestartRule

// Action is what a matching rule does (Kubernetes' ContainerRestartRuleAction).
type Action = api.ContainerRestartRuleAction

// Rule actions.
const (
	// ActionRestart ("Restart") restarts the container.
	ActionRestart = api.RestartRuleActionRestart
	// ActionRestartAllContainers ("RestartAllContainers") restarts the whole pod in place:
	// every container is stopped, the init containers run again in order, then the others
	// start, the sandbox kept; the pod reports conditions.AllContainersRestarting meanwhile.
	ActionRestartAllContainers = api.RestartRuleActionRestartAllContainers
)

// OnExitCodes matches an exit code against a set (Kubernetes'
// ContainerRestartRuleOnExitCodes): Operator, and Values, the exit codes (empty matches
// nothing for In and every code for NotIn). Its fields are documented at
// [api.ContainerRestartRuleOnExitCodes].
type OnExitCodes = api.ContainerRestartRuleOnExitCodes

// Operator relates an exit code to a rule's values (Kubernetes'
// ContainerRestartRuleOnExitCodesOperator).
type Operator = api.ContainerRestartRuleOnExitCodesOperator

// Exit-code operators.
const (
	// OpIn ("In"): the code is one of the values.
	OpIn = api.RestartRuleOpIn
	// OpNotIn ("NotIn"): the code is none of them.
	OpNotIn = api.RestartRuleOpNotIn
)
