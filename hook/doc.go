// Package hook runs container lifecycle handlers (postStart and preStop hooks)
// with the semantics of the Kubernetes kubelet.
//
// A [Handler] acts on a [Target]: the pod and container it belongs to, the pod's
// IP address, and an [Execer] that runs commands inside the container. The
// package offers the handler kinds the kubelet supports, plus Go functions:
//
//   - [Exec] runs a command in the container. Exit code 0 is success. There is no
//     timeout unless the caller's context has one.
//   - [HTTPGet] sends a GET request from the host (not from inside the container)
//     to the pod IP, or to an explicit host. Only transport errors fail the hook:
//     the status code is not checked, and there is no client timeout.
//   - [Sleep] waits for a duration.
//   - [HandlerFunc] adapts a Go function.
//
// The kubelet's tcpSocket handler is deliberately absent: the kubelet accepts it
// in the API but always fails it at run time.
//
// # Errors
//
// Exec, HTTPGet and Sleep report failures as [*Error], which names the handler,
// the target and the cause, and for exec handlers the exit code and output. The
// message may contain the command's output and so secrets: like the kubelet,
// callers should put only a fixed text such as "PostStartHook failed" into
// events, and keep the detail for logs and container status.
//
// # Context
//
// The context bounds the handler. A postStart caller usually passes a context
// without a deadline (the kubelet does not bound postStart); a preStop caller
// passes one that ends with the termination grace period.
//
// Imports: of this repository it imports only internal/httpget. It must never import package
// podlife (or its sub-packages), probe or cni: the arrow points from podlife and probe to hook.
package hook
