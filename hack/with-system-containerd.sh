#!/bin/bash
# with-system-containerd.sh: run a command beside a "system" containerd, without one on the host.
#
# The command runs in a mount namespace of its own where a tmpfs covers /run/containerd and a
# containerd (CONTAINERD, default the repo's .cache/bin/containerd 2.x) with a private root
# serves at the system socket, /run/containerd/containerd.sock, with a canary namespace: what a
# systemd host with a distribution's containerd service looks like to podlife. No other process
# on the host sees that socket (nor loses its own /run/containerd). The daemon is stopped (by
# its PID) and its root removed when the command ends; the exit status is the command's.
#
# Usage: hack/with-system-containerd.sh CMD [ARG...]   (as root)
set -euo pipefail
if [ "${PODLIFE_IN_SYSNS:-}" != 1 ]; then
	PODLIFE_IN_SYSNS=1 exec unshare --mount --propagation private "$0" "$@"
fi
REPO=$(cd "$(dirname "$0")/.." && pwd)
CONTAINERD=${CONTAINERD:-$REPO/.cache/bin/containerd}
dir=$(mktemp -d /tmp/plt-sysctrd.XXXXXX)
mount -t tmpfs -o mode=0711 tmpfs /run/containerd
cat >"$dir/config.toml" <<TOML
version = 2
root = "$dir/root"
state = "/run/containerd/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "/run/containerd/containerd.sock"
TOML
PATH=$(dirname "$CONTAINERD"):$PATH "$CONTAINERD" --config "$dir/config.toml" >"$dir/containerd.log" 2>&1 &
pid=$!
cleanup() {
	kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
for _ in $(seq 100); do
	ctr --address /run/containerd/containerd.sock version >/dev/null 2>&1 && break
	sleep 0.1
done
ctr --address /run/containerd/containerd.sock namespaces create sys-canary podlife.test/canary=1
echo "with-system-containerd: $("$CONTAINERD" --version | awk '{print $3}') (pid $pid) at /run/containerd/containerd.sock" >&2
"$@"
