package sandboxns

// Kind names a namespace type that can be pinned. Its value is also the
// file name under the pin directory and the entry name under /proc/*/ns.
type Kind string

// The namespace kinds a pod shares between its containers.
const (
	Net Kind = "net"
	IPC Kind = "ipc"
	UTS Kind = "uts"
	// PID is a PID namespace. [Create] cannot make one (a PID namespace exists only while its
	// first process lives): [PinProcess] pins a running process's.
	PID Kind = "pid"
)

// allKinds lists every Kind this package knows, in a fixed order.
func allKinds() []Kind {
	return []Kind{Net, IPC, UTS, PID}
}
