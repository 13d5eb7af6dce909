// Package httpget holds what the HTTP GET lifecycle handlers of package hook
// and the HTTP GET probers of package probe share, all as the Kubernetes
// kubelet does it:
//
//   - [Spec] describes the request as a pod spec gives it (scheme, host,
//     port, path, headers) and builds it with the kubelet's header rules
//     ([Spec.NewRequest]);
//   - [NewClient] returns the client that sends it, which follows redirects
//     to the same host only ([CheckRedirect]);
//   - [ReadBody] reads a bounded part of the answer;
//   - [UserAgent] makes the default User-Agent from the module's version.
//
// What a response means (its status code, a redirect to another host, an
// HTTPS request answered in plain HTTP) is left to the callers, which differ:
// a lifecycle handler ignores the status code, a probe does not.
//
// It imports nothing of this repository and must never import hook, probe or package podlife,
// which build on it.
package httpget
