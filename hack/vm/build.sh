#!/bin/bash
# build.sh: build (once) the Debian 12 guest that `make test-vm` boots, and print its directory.
#
# The guest is what most podlife users run: Debian 12 with systemd, the unified cgroup v2 hierarchy
# and Debian's containerd running as a service, plus crun, runc, busybox-static, the CNI plugins, gcc
# (for -race) and the host's Go toolchain. Everything comes from Debian's packages (debootstrap from
# deb.debian.org) and from the host's GOROOT, so a fresh Debian 12 host builds it offline from
# anything but the Debian mirror. The image is cached outside the work tree in
# $PODLIFE_VM_CACHE/vm-<hash> (hash of this script and the Go version): a second run reuses it.
#
# Usage: hack/vm/build.sh            (prints the image directory on its last line)
set -euo pipefail

CACHE=${PODLIFE_VM_CACHE:-/var/cache/podlife}
MIRROR=${PODLIFE_VM_MIRROR:-http://deb.debian.org/debian}
SIZE=${PODLIFE_VM_DISK:-20G}
GOROOT_HOST=$(go env GOROOT)
GOVERSION=$(go env GOVERSION)

# The guest's packages: `make deps`' list (containerd, runc, crun, CNI plugins, busybox-static, ...)
# plus what a booting systemd guest and `go test -race` need.
PKGS=(
	systemd systemd-sysv udev dbus kmod procps iproute2 iputils-ping linux-image-amd64 initramfs-tools
	containerd runc crun containernetworking-plugins busybox-static catatonit iptables
	docker-registry apache2-utils ca-certificates etcd-server
	gcc libc6-dev make git tar util-linux
)

hash=$( { cat "$0"; echo "$GOVERSION"; } | sha256sum | cut -c1-12)
DIR=$CACHE/vm-$hash
if [ -f "$DIR/.built" ]; then
	echo "$DIR"
	exit 0
fi

for t in debootstrap mkfs.ext4 qemu-system-x86_64; do
	command -v $t >/dev/null || {
		echo "installing qemu-system-x86 debootstrap e2fsprogs (apt)" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-system-x86 debootstrap e2fsprogs >/dev/null
		break
	}
done

start=$(date +%s)
rm -rf "$DIR"
mkdir -p "$DIR"
ROOT=$DIR/rootfs
echo "debootstrap bookworm into $ROOT ($MIRROR)" >&2
debootstrap --variant=minbase --include="$(IFS=,; echo "${PKGS[*]}")" bookworm "$ROOT" "$MIRROR" >"$DIR/debootstrap.log" 2>&1 || {
	tail -n 30 "$DIR/debootstrap.log" >&2
	exit 1
}

# The host's Go toolchain, same version.
mkdir -p "$ROOT/usr/local"
cp -a "$GOROOT_HOST" "$ROOT/usr/local/go"

echo podlife-vm >"$ROOT/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 podlife-vm\n' >"$ROOT/etc/hosts"
# qemu user networking: DHCP on the virtio NIC, slirp's DNS at 10.0.2.3.
cat >"$ROOT/etc/systemd/network/10-vm.network" <<'NET'
[Match]
Name=en* eth*
[Network]
DHCP=ipv4
NET
rm -f "$ROOT/etc/resolv.conf"
echo 'nameserver 10.0.2.3' >"$ROOT/etc/resolv.conf"
cat >"$ROOT/etc/apt/sources.list" <<SRC
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SRC
# Shares from the host (9p): the repository and Go module download cache (read-only), and the
# results directory (read-write). The test run itself is the repository's hack/vm/guest-run.sh,
# so changing it needs no rebuild.
mkdir -p "$ROOT/mnt/repo" "$ROOT/mnt/gomod" "$ROOT/mnt/out"
cat >"$ROOT/etc/fstab" <<'FSTAB'
/dev/vda / ext4 rw,relatime 0 1
repo /mnt/repo 9p trans=virtio,version=9p2000.L,ro,msize=524288,nofail 0 0
gomod /mnt/gomod 9p trans=virtio,version=9p2000.L,ro,msize=524288,nofail 0 0
out /mnt/out 9p trans=virtio,version=9p2000.L,rw,msize=524288,nofail 0 0
FSTAB
printf '9p\n9pnet_virtio\n' >"$ROOT/etc/modules-load.d/9p.conf"
cat >"$ROOT/etc/systemd/system/podlife-vm-run.service" <<'UNIT'
[Unit]
Description=podlife test run (hack/vm/guest-run.sh from the shared repository)
Wants=network-online.target
After=network-online.target containerd.service mnt-repo.mount mnt-out.mount mnt-gomod.mount
RequiresMountsFor=/mnt/repo /mnt/out /mnt/gomod

[Service]
Type=oneshot
StandardOutput=journal+console
StandardError=journal+console
ExecStart=/bin/bash /mnt/repo/hack/vm/guest-run.sh
ExecStopPost=/bin/systemctl --no-block poweroff
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
UNIT
chroot "$ROOT" systemctl enable podlife-vm-run.service systemd-networkd.service systemd-networkd-wait-online.service containerd.service >/dev/null 2>&1
# Root login on the serial console without a password (debugging a run by hand).
chroot "$ROOT" passwd -d root >/dev/null
chroot "$ROOT" apt-get clean

cp -L "$ROOT/vmlinuz" "$DIR/vmlinuz"
cp -L "$ROOT/initrd.img" "$DIR/initrd.img"
echo "making the ext4 image ($SIZE, sparse)" >&2
truncate -s "$SIZE" "$DIR/rootfs.img"
mkfs.ext4 -q -F -L podlife-vm -d "$ROOT" "$DIR/rootfs.img"
rm -rf "$ROOT"
echo "built in $(($(date +%s) - start))s" >"$DIR/.built"
echo "image built in $(($(date +%s) - start))s" >&2
echo "$DIR"
