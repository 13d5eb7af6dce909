// Package restartrule holds a container's restart rules (ContainerSpec.RestartPolicyRules,
// Kubernetes' ContainerRestartRules feature): evaluated in order when a container with its own
// RestartPolicy exits, the first rule whose exit codes match decides what happens, whatever
// the restart policy says:
//
//	c := podlife.ContainerSpec{
//		Name: "worker", Image: "example.com/worker:1",
//		RestartPolicy: podlife.RestartNever,
//		RestartPolicyRules: []restartrule.Rule{{
//			Action:    restartrule.ActionRestart,
//			ExitCodes: &restartrule.OnExitCodes{Operator: restartrule.OpIn, Values: []int32{42}},
//		}},
//	}
//
// The package declares the rules' types and values only, under shorter names than
// Kubernetes' (Rule is ContainerRestartRule). It imports podlife's internal vocabulary, never
// package podlife.
package restartrule
