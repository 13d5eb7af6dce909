// Package podsecurity holds the Kubernetes Pod Security Standards as podlife applies them: the
// levels a Runtime enforces (Config.PodSecurity), the error of a refused pod, and Check, which
// evaluates a spec against a level without running it (as `kubectl label ns
// pod-security.kubernetes.io/enforce=...` would):
//
//	if err := podsecurity.Check(podsecurity.Restricted, &spec); err != nil {
//		var pe *podsecurity.Error
//		if errors.As(err, &pe) {
//			fmt.Println(pe.Policy, pe.Detail) // the API server's message
//		}
//	}
//
// The checks are the API server's own (k8s.io/pod-security-admission, version "latest"). The
// package imports podlife's internal admission package, never package podlife.
package podsecurity
