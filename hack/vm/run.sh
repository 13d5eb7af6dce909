#!/bin/bash
# run.sh: run podlife's root tests in the Debian 12 VM (systemd, cgroup v2, Debian's containerd
# as a service, crun) that hack/vm/build.sh builds once; `make test-vm` calls it.
#
# The repository is shared read-only (9p) and copied in the guest; the containerd 2.x, logger
# and CNI plugin binaries are the host's (static or glibc Go binaries, same Debian release);
# results come back in $DIR/runs/<time>/ (summary.txt, test.log, console.log).
#
# Environment: TEST_RUN (go test -run; default: all under KVM, VM_TESTS under TCG; TEST_RUN=. is
# everything), VM_RACE (1: a -race test binary, 0: without; default 1 under KVM, 0 under TCG, where
# the race detector multiplies emulation's cost: `make test` runs -race on the host),
# VM_TEST_TIMEOUT (60m), BENCH_FLAGS (also run podlife-bench with them), VM_MEM (6G, at most 8G),
# VM_CPUS (2), VM_TIMEOUT (seconds, 5400), CONTAINERD, LOGGER, CNI_BIN (default: the repo's
# .cache), PODLIFE_TEST_SLOW (the tests' time scale for upper bounds, podlifetest.Budget: default
# 1 under KVM, 40 under TCG). On a shared machine run it as `nice -n 10 make test-vm ...` (qemu inherits it).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
CONTAINERD=${CONTAINERD:-$REPO/.cache/bin/containerd}
LOGGER=${LOGGER:-$REPO/.cache/bin/podlife-logger}
CNI_BIN=${CNI_BIN:-$REPO/.cache/cni/bin}
VM_MEM=${VM_MEM:-6G}
VM_CPUS=${VM_CPUS:-2}
VM_TIMEOUT=${VM_TIMEOUT:-5400}

b0=$(date +%s)
DIR=$("$REPO/hack/vm/build.sh" | tail -n 1)
echo "vm image: $DIR ($(cat "$DIR/.built"); this step $(($(date +%s) - b0)) s)"
exec 9>"$DIR/lock"
flock -n 9 || { echo "another run uses $DIR"; exit 1; }

OUT=$DIR/runs/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT/bin" "$OUT/cni"
cp "$CONTAINERD" "$(dirname "$CONTAINERD")/containerd-shim-runc-v2" "$LOGGER" "$OUT/bin/"
cp "$CNI_BIN"/* "$OUT/cni/"
# KVM when it can boot Debian's kernel. A host whose KVM is PVM (kvm_pvm: nested virtualization
# without hardware support, as in some cloud sandboxes) runs only PVM guest kernels, which Debian
# does not ship: there the VM runs under TCG (emulation, several times slower) unless VM_KERNEL
# names a PVM guest kernel. VM_ACCEL=kvm|tcg forces one.
kernel=${VM_KERNEL:-$DIR/vmlinuz}
accel=${VM_ACCEL:-}
if [ -z "$accel" ]; then
	accel=tcg
	if [ -w /dev/kvm ] && { [ ! -d /sys/module/kvm_pvm ] || [ -n "${VM_KERNEL:-}" ]; }; then
		accel=kvm
	fi
fi
if [ "$accel" = kvm ]; then
	# -arch-capabilities: nested KVM refuses to set that MSR ("failed to set MSR 0x10a").
	cpu=(-enable-kvm -cpu host,-arch-capabilities)
else
	cpu=(-accel tcg,thread=multi,tb-size=512 -cpu max)
fi
# Under KVM the whole package runs; under TCG (hours for all of it) the tests that depend on the
# host: cgroups and resources, OOM, crun, pause and shared PID, ephemeral containers (cgroup
# checks), the private containerd beside the system one, and the smoke and fake-runtime sets.
VM_TESTS='Smoke|Fake|TestPodLevelResources|TestPodCgroupOfUnmanagedPodRemoved|TestFilesVolumeAndResources|TestOOMKilled|TestRuntimeClassCrun|TestEmbeddedContainerd|TestRevive$|TestPrivateContainerd|TestRunAfterPrivateContainerdStopped|TestCloseDuringOutage|TestEarlyFailureNeverHangs|TestEphemeralContainer|TestShareProcessNamespace|TestSharedPID|TestUnmanagedSharedPIDPod|TestCheckPinned'
if [ -z "${TEST_RUN+set}" ] && [ "$accel" = tcg ]; then
	TEST_RUN=$VM_TESTS
fi
VM_RACE=${VM_RACE:-$([ "$accel" = kvm ] && echo 1 || echo 0)}
# The tests' upper bounds and budgets (contexts, waits, probe timeouts they chose, CPU costs) are
# multiplied by PODLIFE_TEST_SLOW (podlifetest.Budget); lower bounds are not. Under TCG an exec
# or a create takes 20-30 times as long as on the host, a containerd call's CPU up to ~40 times.
SLOW=${PODLIFE_TEST_SLOW:-$([ "$accel" = kvm ] && echo 1 || echo 40)}
race=()
if [ "$VM_RACE" = 1 ]; then
	race=(-race)
fi
# The test binary and podlife-bench are built here (the guest only runs them: under TCG a build
# in the guest would take most of the run); the guest keeps its Go toolchain for runs by hand.
c0=$(date +%s)
(cd "$REPO" && go test "${race[@]}" -c -o "$OUT/bin/podlife.test" ./podlife/)
if [ -n "${BENCH_FLAGS:-}" ]; then
	(cd "$REPO" && go build -o "$OUT/bin/podlife-bench" ./internal/cmd/podlife-bench)
fi
echo "test binary built on the host in $(($(date +%s) - c0)) s"
{
	printf 'TEST_RUN=%q\nTEST_TIMEOUT=%q\nBENCH_FLAGS=%q\nRACE=%q\nSLOW=%q\n' "${TEST_RUN:-}" "${VM_TEST_TIMEOUT:-60m}" "${BENCH_FLAGS:-}" "${race[*]}" "$SLOW"
} >"$OUT/args.env"

echo "booting the VM ($accel, $VM_CPUS vCPUs, $VM_MEM, test binary ${race[*]:-without -race}, PODLIFE_TEST_SLOW=$SLOW); results in $OUT"
t0=$(date +%s)
qemu-system-x86_64 "${cpu[@]}" -smp "$VM_CPUS" -m "$VM_MEM" -no-reboot \
	-kernel "$kernel" -initrd "$DIR/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 systemd.unified_cgroup_hierarchy=1 systemd.show_status=0" \
	-drive "file=$DIR/rootfs.img,if=virtio,format=raw" \
	-virtfs "local,path=$REPO,mount_tag=repo,security_model=none,readonly=on" \
	-virtfs "local,path=$(go env GOMODCACHE)/cache/download,mount_tag=gomod,security_model=none,readonly=on" \
	-virtfs "local,path=$OUT,mount_tag=out,security_model=none" \
	-nic user,model=virtio-net-pci \
	-display none -monitor none -serial "file:$OUT/console.log" \
	-daemonize -pidfile "$OUT/qemu.pid"
pid=$(cat "$OUT/qemu.pid")
trap 'if kill -0 "$pid" 2>/dev/null; then echo "stopping the VM (pid $pid)"; kill "$pid"; fi' EXIT
while kill -0 "$pid" 2>/dev/null; do
	if [ $(($(date +%s) - t0)) -gt "$VM_TIMEOUT" ]; then
		echo "the VM ran over $VM_TIMEOUT s"
		break
	fi
	sleep 5
done
echo "VM run: $(($(date +%s) - t0)) s (boot, copy, tests, power-off)"
if ! kill -0 "$pid" 2>/dev/null; then
	rm -rf "$OUT/bin" "$OUT/cni" # the binaries (the logs stay)
fi
if [ ! -f "$OUT/rc" ]; then
	echo "no result; the console's end ($OUT/console.log):"
	tail -n 40 "$OUT/console.log"
	exit 1
fi
cat "$OUT/summary.txt"
exit "$(cat "$OUT/rc")"
