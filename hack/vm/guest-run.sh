#!/bin/bash
# guest-run.sh: the test run inside the VM (started at boot by podlife-vm-run.service, which
# powers the VM off when it ends). It reads its arguments from /mnt/out/args.env (written by
# hack/vm/run.sh on the host), copies the shared repository, runs the tests like `make test`
# does, and writes the results to /mnt/out (test.log, summary.txt, rc).
set -uo pipefail
OUT=/mnt/out
# shellcheck disable=SC1091
. "$OUT/args.env"
export HOME=/root PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# For Go runs by hand in the guest: modules come from the host's download cache (a read-only
# share); go.sum checks every hash.
export GOMODCACHE=/root/go/pkg/mod GOFLAGS="-buildvcs=false -mod=mod" GOSUMDB=off GOTOOLCHAIN=local GOPROXY=file:///mnt/gomod
SRC=/root/podlife
sum() { echo "$*" | tee -a "$OUT/summary.txt"; }
: >"$OUT/summary.txt"

sum "== guest: $(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r), $(nproc) vCPUs, $(awk '/MemTotal/ {print int($2/1024)" MiB"}' /proc/meminfo)"
sum "== cgroup: /sys/fs/cgroup is $(stat -fc %T /sys/fs/cgroup) (controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null)); init: $(cat /proc/1/comm)"
sum "== system containerd: $(systemctl is-active containerd) ($(containerd --version 2>&1 | awk '{print $3}')), socket $(test -S /run/containerd/containerd.sock && echo present || echo absent)"
sum "== runc $(runc --version | awk 'NR==1 {print $3}'), crun $(crun --version | awk 'NR==1 {print $3}'), $(go version | awk '{print $3}')"

# The system daemon's view before the run: podlife must leave it as it was (a canary namespace
# with a label, and every namespace's containers).
sysview() {
	for ns in $(ctr namespaces ls -q); do
		echo "ns $ns $(ctr namespaces ls | awk -v n="$ns" '$1 == n {print $2}')"
		ctr -n "$ns" containers ls -q | sed "s/^/  container /"
	done
}
ctr namespaces create vm-canary podlife.vm/canary=1 2>/dev/null || true
sysview >"$OUT/system-before.txt"

start=$(date +%s)
rm -rf "$SRC" && mkdir -p "$SRC/.cache/bin" "$SRC/.cache/cni/bin"
tar -C /mnt/repo --exclude=./.cache --exclude=./.git -cf - . | tar -C "$SRC" -xf -
cp /mnt/out/bin/* "$SRC/.cache/bin/" && cp /mnt/out/cni/* "$SRC/.cache/cni/bin/"
cd "$SRC" || exit 1
export PODLIFE_TEST_CONTAINERD=$SRC/.cache/bin/containerd PODLIFE_TEST_LOGGER=$SRC/.cache/bin/podlife-logger PODLIFE_CNI_PATH=$SRC/.cache/cni/bin
# The tests' time scale for upper bounds (podlifetest.Budget): run.sh sets it from the accelerator.
export PODLIFE_TEST_SLOW=${SLOW:-1}
sum "== private containerd for the tests: $("$PODLIFE_TEST_CONTAINERD" --version | awk '{print $3}'); PODLIFE_TEST_SLOW=$PODLIFE_TEST_SLOW"
t0=$(date +%s)
# The host built the test binary (go test [-race] -c ./podlife/); it runs in the package's
# directory, as go test runs it.
(cd "$SRC/podlife" && "$SRC/.cache/bin/podlife.test" -test.count=1 -test.timeout="${TEST_TIMEOUT:-30m}" -test.v ${TEST_RUN:+-test.run "$TEST_RUN"}) >"$OUT/test.log" 2>&1
rc=$?
t1=$(date +%s)
sum "== podlife.test (go test ${RACE:-} ./podlife/)${TEST_RUN:+ -run '$TEST_RUN'}: exit $rc in $((t1 - t0)) s (copy and setup $((t0 - start)) s)"
sum "== results: $(grep -c -- '^--- PASS' "$OUT/test.log") top-level tests passed, $(grep -c -- "--- FAIL" "$OUT/test.log") failed (subtests included), $(grep -c -- "--- SKIP" "$OUT/test.log") skipped (subtests included)"
grep -E -A1 -- '^\s*--- SKIP' "$OUT/test.log" | grep -v '^--$' | paste - - | sed -E 's/\s+/ /g' | tee -a "$OUT/summary.txt" >/dev/null
grep -E -- '^\s*--- FAIL|^(PASS|FAIL)$' "$OUT/test.log" | tee -a "$OUT/summary.txt" >/dev/null

if [ -n "${BENCH_FLAGS:-}" ]; then
	t0=$(date +%s)
	# shellcheck disable=SC2086
	"$SRC/.cache/bin/podlife-bench" --containerd "$PODLIFE_TEST_CONTAINERD" --container-logger "$PODLIFE_TEST_LOGGER" $BENCH_FLAGS >"$OUT/bench.txt" 2>&1
	sum "== podlife-bench $BENCH_FLAGS: exit $? in $(($(date +%s) - t0)) s (bench.txt)"
fi

sysview >"$OUT/system-after.txt"
if diff -u "$OUT/system-before.txt" "$OUT/system-after.txt" >"$OUT/system-diff.txt"; then
	sum "== system containerd: namespaces and containers unchanged by the run"
else
	sum "== system containerd CHANGED by the run (system-diff.txt)"
	rc=1
fi
sum "== leftovers: $(ip -o link | grep -c 'plt') plt links, $(find /sys/fs/cgroup -maxdepth 2 -name 'plt-*' | wc -l) plt cgroups, $(ls /run/netns 2>/dev/null | wc -l) netns"
echo "$rc" >"$OUT/rc"
sync
