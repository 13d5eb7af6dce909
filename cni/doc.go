// Package cni attaches pod network namespaces, given as paths to pinned
// netns files, to CNI networks through libcni and the standard plugin
// binaries.
//
// [NewBridge] generates and owns a bridge network (bridge + host-local +
// portmap); [FromConfList] wraps a user-supplied conflist. Both return a
// [Network]. The configuration is parsed once, when the Network is made.
// Both are [Recorder]s: their [Record] (conflist, state dir, plugin dirs)
// kept beside a pod lets another process, configured with another network,
// detach that pod with [FromRecord].
//
// # Concurrency
//
// CNI plugins race on iptables and on their own state when run in
// parallel, so every Setup, Remove and Destroy of a Network holds two locks
// for its whole duration: an in-process one, and an exclusive flock on
// StateDir/cni.lock, which also serialises other processes (and other
// Networks) using the same state dir. Calls on Networks with different state
// dirs are not serialised against each other. Waiting for either lock
// honours the context. A Network is safe for concurrent use.
//
// The plugins inherit the flock's file description (fd 3), so the lock
// outlives a process killed during a call until its plugins, and what they
// run, have exited: the DEL of the process that cleans up after it waits for
// them instead of racing an ADD that goes on without its caller.
//
// # One bridge, one state dir
//
// host-local keeps a Bridge's leases in its state dir, so two Bridges with
// different state dirs (or network names) on one bridge device would hand
// out the same addresses. A bridge device therefore belongs to one network
// of one state dir, recorded host-wide in BridgeClaimDir/<bridge>.json: a
// Bridge's Setup fails with a *BridgeInUseError while another network owns
// the bridge and holds leases on it, and otherwise makes its own network
// the owner. The check, the claim and the ADD run under an flock on
// BridgeClaimDir/<bridge>.lock (taken after the state-dir lock). Remove
// never looks at the claim. Destroy leaves a bridge another network owns
// alone, and deletes the claim of one it destroys (not the lock file).
//
// # Errors
//
// Errors of Setup and Remove read `cni: ADD network "<name>" for pod "<id>":
// <cause>` (DEL for Remove) and wrap their cause with %w.
//
// # Plugin behaviour this package relies on or works around
//
// The package is tested against the plugins of the
// github.com/containernetworking/plugins version pinned in this module's
// go.mod (tool directives; `make cni-plugins` builds them) and against the
// Debian containernetworking-plugins 1.1.1 binaries:
//
//   - Remove passes an empty CNI_NETNS when the netns path no longer exists
//     or is no longer a namespace (an unmounted pin); given such a path, the
//     bridge plugin would fail the DEL. With an empty CNI_NETNS it still
//     releases the IPAM lease and portmap still removes the port mappings,
//     which Remove takes from the CNI cache when the caller passes none.
//   - A Bridge masquerades its pods with one nat rule for its subnet
//     (MasqueradeComment), not the bridge plugin's ipMasq, whose chain per
//     pod costs eleven iptables runs per ADD and nine per DEL. With ipMasq
//     (a user's conflist, or a pod attached by an older podlife, whose
//     recorded conflist has it) the bridge plugin (1.1.1) finds the
//     addresses to stop masquerading inside the netns, so a DEL without a
//     netns leaks the pod's ipMasq chain. After such a DEL, or one without
//     a cache entry, Remove deletes the nat rules tagged `name: "<network>"
//     id: "<pod>"` and the per-pod chains they lead to itself.
//   - portmap does nothing without port mappings, so calls without any skip
//     its exec. With snat (on in generated conflists) it sets route_localnet
//     on the bridge and masquerades localhost connections, which is what
//     makes 127.0.0.1:<hostPort> reach the pod from the host. route_localnet
//     also lets packets that pods send to 127.0.0.0/8 reach the host's
//     loopback services (CVE-2020-8558), so before the first port mapping a
//     Bridge inserts kube-proxy's guard, scoped to its bridge, at the head
//     of the filter table's INPUT chain: `-i <bridge> -d 127.0.0.0/8 -m
//     conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`, tagged
//     `podlife-localnet-guard: <network>`. Destroy removes it.
//   - The firewall plugin is not part of generated conflists: it works with
//     1.1.1 and iptables-nft but only matters when the host's FORWARD
//     policy is DROP, and it adds about as much time to every Setup and
//     Remove as the bridge plugin takes itself.
//
// Host-wide side effects that outlive [Bridge.Destroy]: the bridge plugin
// turns on net.ipv4.ip_forward (isGateway) and never turns it off, and
// portmap's chains CNI-HOSTPORT-DNAT, -SETMARK and -MASQ, shared by all CNI
// networks on the host, stay in the nat table once created, and so does
// the (empty) lock file BridgeClaimDir/<bridge>.lock.
//
// # Platforms
//
// Pods are attached on Linux only. The package compiles elsewhere, so that
// code importing it builds there, but Setup and Destroy fail with errors
// wrapping [errors.ErrUnsupported].
package cni
