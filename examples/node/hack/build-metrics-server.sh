#!/usr/bin/env bash
# build-metrics-server.sh DIR: build metrics-server (sigs.k8s.io/metrics-server) from the Go module
# proxy into DIR (cached: does nothing when it is there). TestKubectlTop runs it as a host process.
# v0.9.0 is built against k8s.io/* v0.36: it serves metrics.k8s.io/v1beta1 to an API server of
# v1.37 (the aggregation layer's API has not changed) and reads the kubelet's /metrics/resource.
set -euo pipefail
dir=${1:?usage: build-metrics-server.sh DIR}
version=${METRICS_SERVER_VERSION:-v0.9.0}
[ -x "$dir/metrics-server" ] && exit 0
mkdir -p "$dir/.partial-ms"
trap 'rm -rf "$dir/.partial-ms"' EXIT
echo "building metrics-server $version into $dir" >&2
CGO_ENABLED=0 GOBIN="$dir/.partial-ms" GOFLAGS=-buildvcs=false \
  go install -trimpath "sigs.k8s.io/metrics-server/cmd/metrics-server@$version"
mv "$dir/.partial-ms/metrics-server" "$dir/metrics-server"
