#!/usr/bin/env bash
# build-e2e.sh DIR: build Kubernetes' node conformance suite (e2e.test, from k8s.io/kubernetes
# test/e2e), the agnhost and nonewprivs test image binaries (test/images/agnhost, nnp of
# test/images/nonewprivs) and the ginkgo CLI that runs the suite in parallel
# (github.com/onsi/ginkgo/v2/ginkgo, at the version Kubernetes pins) from the Go module proxy into
# DIR (cached: builds only those missing).
#
# Same pins as build-control-plane.sh: a throwaway module requires k8s.io/kubernetes at the
# version internal/apiserverdiff pins, with its ./staging modules replaced by the published k8s.io/*
# versions. e2e.test is a test binary (go test -c); agnhost is a plain command. Both are static.
set -euo pipefail
dir=${1:?usage: build-e2e.sh DIR}
root=$(cd "$(dirname "$0")/../../.." && pwd)
[ -x "$dir/e2e.test" ] && [ -x "$dir/agnhost" ] && [ -x "$dir/ginkgo" ] && [ -x "$dir/nnp" ] && exit 0

src=$(mktemp -d "${TMPDIR:-/tmp}/podlife-e2e-build.XXXXXX")
trap 'rm -rf "$src"' EXIT
sed 's#^module .*#module podlife.local/k8se2e#' "$root/internal/apiserverdiff/go.mod" >"$src/go.mod"
cp "$root/internal/apiserverdiff/go.sum" "$src/go.sum"
cat >"$src/main.go" <<'GO'
package main

func main() {}
GO
mkdir -p "$dir"
cd "$src"
ver=$(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' go.mod)
minor=$(echo "$ver" | cut -d. -f2)
v=k8s.io/component-base/version
ldflags="-X $v.gitVersion=$ver -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean"
export CGO_ENABLED=0 GOFLAGS="-mod=mod -buildvcs=false"
if [ ! -x "$dir/agnhost" ]; then
  echo "building agnhost into $dir" >&2
  go build -trimpath -ldflags "$ldflags" -o "$dir/agnhost.partial" k8s.io/kubernetes/test/images/agnhost
  mv "$dir/agnhost.partial" "$dir/agnhost"
fi
if [ ! -x "$dir/nnp" ]; then
  # The nonewprivs test image's program (test/images/nonewprivs): prints its effective uid.
  echo "building nnp into $dir" >&2
  go build -trimpath -o "$dir/nnp.partial" k8s.io/kubernetes/test/images/nonewprivs
  mv "$dir/nnp.partial" "$dir/nnp"
fi
if [ ! -x "$dir/ginkgo" ]; then
  echo "building ginkgo into $dir" >&2
  go build -trimpath -o "$dir/ginkgo.partial" github.com/onsi/ginkgo/v2/ginkgo
  mv "$dir/ginkgo.partial" "$dir/ginkgo"
fi
if [ ! -x "$dir/e2e.test" ]; then
  echo "building e2e.test into $dir (10-25 minutes the first time on 2 cores)" >&2
  go test -c -vet=off -trimpath -ldflags "$ldflags" -o "$dir/e2e.test.partial" k8s.io/kubernetes/test/e2e
  mv "$dir/e2e.test.partial" "$dir/e2e.test"
fi
