// Package control is the control socket: how a process asks the manager of a pod (another
// process's Runtime) to act on it. The server (Server: one unix socket per Runtime under
// StateDir/control, peers checked with SO_PEERCRED, one line of JSON per request, bounded in
// size and time) hands each checked Request to the function its Runtime gives; the client side
// (Ask, Answers) is what a Pod handle of another process uses. The wire format (Request,
// Reply, EphemeralRequest) is frozen: managers and clients of different versions talk to each
// other through it.
//
// It owns the socket, the wire format and the checks that need no pod; what depends on a pod
// (the pod worker that does a request, the rules of conditions and deadlines, the state dir's
// permissions) is passed in as functions (Config). It imports podlife/internal/api and
// peercred; it must not import package podlife, podlife/internal/ctrd, podlife/daemon or the
// pod worker's packages.
package control
