#!/usr/bin/env bash
# build-control-plane.sh DIR: build kube-apiserver, kube-scheduler, kube-controller-manager and
# kubectl from the Go module proxy into DIR (cached: does nothing when all four are there).
#
# A throwaway module requires k8s.io/kubernetes at the version internal/apiserverdiff pins and
# replaces its ./staging modules with the published k8s.io/* versions (internal/apiserverdiff's
# go.mod is the single source of those pins). All binaries come out of ONE go build, so the shared
# packages compile once.
set -euo pipefail
dir=${1:?usage: build-control-plane.sh DIR}
root=$(cd "$(dirname "$0")/../../.." && pwd)
bins=(kube-apiserver kube-scheduler kube-controller-manager kubectl)
missing=0
for b in "${bins[@]}"; do [ -x "$dir/$b" ] || missing=1; done
[ $missing = 0 ] && exit 0

src=$(mktemp -d "${TMPDIR:-/tmp}/podlife-k8s-build.XXXXXX")
trap 'rm -rf "$src"' EXIT
sed 's#^module .*#module podlife.local/k8sbuild#' "$root/internal/apiserverdiff/go.mod" >"$src/go.mod"
cp "$root/internal/apiserverdiff/go.sum" "$src/go.sum"
cat >"$src/main.go" <<'GO'
package main

func main() {}
GO
mkdir -p "$dir"
cd "$src"
pkgs=()
for b in "${bins[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
echo "building ${bins[*]} into $dir (several minutes the first time)" >&2
# -mod=mod: the throwaway go.sum learns the commands' extra dependencies. The version is stamped
# as Kubernetes' own build does, so that kubectl version and the API server's /version show it.
ver=$(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' go.mod)
minor=$(echo "$ver" | cut -d. -f2)
v=k8s.io/component-base/version
CGO_ENABLED=0 GOFLAGS="-mod=mod -buildvcs=false" go build -trimpath \
  -ldflags "-X $v.gitVersion=$ver -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean" \
  -o "$dir/.partial/" "${pkgs[@]}"
for b in "${bins[@]}"; do mv "$dir/.partial/$b" "$dir/$b"; done
rmdir "$dir/.partial"
