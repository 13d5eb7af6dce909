# podlife — two commands: `make demo` and `make test`. Both install what is missing on a
# Debian 12 host (run as root) and need nothing else.

SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
export GOFLAGS ?= -buildvcs=false

CONTAINERD_VERSION ?= v2.4.2
BIN := $(CURDIR)/.cache/bin
CONTAINERD2 := $(BIN)/containerd
# The container logger (Config.ContainerLogger) that tests, the demo and the benchmark use.
LOGGER := $(BIN)/podlife-logger
# The exec gate (Config.ExecGate) of the warm pool's tests and benchmark, built with the logger.
EXECGATE := $(BIN)/podlife-execgate
# The CNI plugins are the tool packages of github.com/containernetworking/plugins pinned in go.mod
# (`go get -tool ...@vX`); tests, examples and the benchmark find them through PODLIFE_CNI_PATH.
CNI_BIN := $(CURDIR)/.cache/cni/bin
export PODLIFE_CNI_PATH ?= $(CNI_BIN)
# Debian's containernetworking-plugins stays as the fallback in the library's default plugin
# dirs (/usr/lib/cni), for programs run outside make, such as `go run ./examples/quickstart`.
DEBS := containerd runc crun containernetworking-plugins busybox-static catatonit iptables iproute2 docker-registry apache2-utils ca-certificates etcd-server
TEST_TIMEOUT ?= 25m
# The Kubernetes control plane of the node e2e (examples/node): kube-apiserver, kube-scheduler,
# kube-controller-manager and kubectl at the k8s.io/kubernetes version internal/apiserverdiff
# pins, built from the Go module proxy once and cached outside the work tree.
K8S_VERSION := $(shell awk '$$1 == "k8s.io/kubernetes" { print $$2; exit }' internal/apiserverdiff/go.mod)
K8S_BIN ?= /var/cache/podlife/k8s-$(K8S_VERSION)
NODE_E2E_TIMEOUT ?= 15m

.PHONY: crash-test demo test test-vm deps containerd2 cni-plugins logger unit integration smoke-1.6 lint bench soak clean apiserver-diff node-e2e k8s-control-plane conformance k8s-e2e

## demo: run the startup-sequence experiment (short times) on a private containerd if none runs:
## containerd 2.x (CONTAINERD_VERSION, first in PATH), not Debian 12's 1.6, past its end of life
## (docs/hosts.md, "containerd versions").
demo: deps containerd2 cni-plugins logger
	PATH=$(BIN):$$PATH go run ./examples/startup-sequence --short --container-logger $(LOGGER)

## test: lint, unit and integration tests (containerd 2.x), a smoke subset on Debian's containerd 1.6, then
## podlife-node against a real control plane (built once into K8S_BIN from the Go module proxy).
test: deps containerd2 cni-plugins logger lint
	@# The control plane's first build takes ~10 minutes on 2 cores: it runs while the tests do
	@# (they mostly wait on containerd); node-e2e waits for it, and builds again, in the open,
	@# whatever it failed to build.
	@examples/node/hack/build-control-plane.sh $(K8S_BIN) >.cache/k8s-build.log 2>&1 </dev/null & echo $$! >.cache/k8s-build.pid
	PODLIFE_TEST_LOGGER=$(LOGGER) PODLIFE_TEST_EXECGATE=$(EXECGATE) PODLIFE_TEST_CONTAINERD=$(CONTAINERD2) go test -race -count=1 -p 1 -timeout $(TEST_TIMEOUT) ./... 2>&1 | tee .cache/test.log; \
	  $(call failures,.cache/test.log)
	$(MAKE) smoke-1.6
	@while kill -0 $$(cat .cache/k8s-build.pid) 2>/dev/null; do sleep 5; done; \
	  echo "control plane build (background): $$(tail -n 1 .cache/k8s-build.log)"
	$(MAKE) node-e2e

## crash-test: SIGKILL a managing process at each of the 28 crash points, then adopt the pod or
## remove it whole (podlife/crash_linux_test.go), and at each of the warm pool's (a member's
## making, a take by Run; with and without the exec gate: podlife/pool_crash_linux_test.go),
## alone; `make test` runs them too.
crash-test: deps containerd2 cni-plugins logger
	PODLIFE_TEST_LOGGER=$(LOGGER) PODLIFE_TEST_EXECGATE=$(EXECGATE) PODLIFE_TEST_CONTAINERD=$(CONTAINERD2) go test -race -count=1 -timeout 10m -run 'TestCrashPoints|TestPoolCrashPoints' ./podlife/

## test-vm: the podlife package's root tests in a Debian 12 VM (qemu, 2 vCPUs): systemd, the
## unified cgroup v2 hierarchy, Debian's containerd running as a service, crun. The image is built
## once from Debian's packages into /var/cache/podlife/vm-<hash> (hack/vm/build.sh); the summary
## is printed at the end (docs/hosts.md). All the tests under KVM; under TCG (a host whose KVM
## cannot boot Debian's kernel) the host-dependent ones. TEST_RUN=<regexp> chooses,
## VM_TEST_TIMEOUT (default 60m) bounds go test, BENCH_FLAGS='--only runtimeclass' also runs
## podlife-bench there. TEST_RUN=. runs every test (under TCG, with VM_RACE=0, its default there:
## a test binary without the race detector; docs/hosts.md says how long). Not part of `make test`.
test-vm: deps containerd2 cni-plugins logger
	hack/vm/run.sh

smoke-1.6: deps cni-plugins logger
	PODLIFE_TEST_LOGGER=$(LOGGER) PODLIFE_TEST_CONTAINERD=/usr/bin/containerd go test -race -count=1 -timeout 10m -run 'Smoke' ./podlife/ 2>&1 | tee .cache/smoke.log; \
	  $(call failures,.cache/smoke.log)

# failures: after a `go test ... | tee LOG`, exit with go test's status and, when it failed,
# repeat the failing tests' own lines at the end, where a truncated CI log still shows them.
failures = rc=$${PIPESTATUS[0]}; if [ $$rc -ne 0 ]; then \
	  echo "=== failures (full output above and in $(1)):"; \
	  grep -E -e '--- FAIL|^panic:|^[[:space:]]+[A-Za-z0-9_]+\.go:[0-9]+: ' $(1) | grep -v 'level=' | head -n 40; \
	fi; exit $$rc

## bench: pod start/stop against the containerd floor and against containerd's CRI plugin driven as the
## kubelet drives it (one pod, then 50 at once: BENCH_FLAGS=-many 0 skips those); BENCH_FLAGS=--json for JSON.
bench: deps containerd2 cni-plugins logger
	PODLIFE_TEST_EXECGATE=$(EXECGATE) go run ./internal/cmd/podlife-bench --containerd $(CONTAINERD2) --container-logger $(LOGGER) $(BENCH_FLAGS)

## soak: SOAK_N (default 1000) run/stop/remove cycles of a pod with init containers, a sidecar,
## hooks and probes, Sequential and Parallel, on a private containerd; fails on any growth of
## netns, veths, IPAM files, iptables rules, mounts, containerd objects, shims, loggers, cgroups,
## fds or goroutines (not part of `make test`). SOAK_FLAGS adds flags.
SOAK_N ?= 1000
soak: deps containerd2 cni-plugins logger
	go run ./internal/cmd/podlife-soak --containerd $(CONTAINERD2) --container-logger $(LOGGER) -n $(SOAK_N) $(SOAK_FLAGS)

## apiserver-diff: run the API server's own validation (k8s.io/kubernetes, internal/apiserverdiff's
## go.mod) on the manifests of podlife/kube's TestAPIServerValidation; fails on a difference not
## marked deliberate. Needs the Go module proxy.
apiserver-diff:
	@mkdir -p .cache
	PODLIFE_APISERVER_CASES=$(CURDIR)/.cache/apiserver-cases.jsonl go test -count=1 -run TestAPIServerValidation ./podlife/kube
	cd internal/apiserverdiff && go run . $(CURDIR)/.cache/apiserver-cases.jsonl

## node-e2e: podlife hosts join a real control plane (etcd, kube-apiserver, scheduler and
## controller-manager on 127.0.0.1) as virtual-kubelet nodes (examples/node), driven by kubectl.
## Builds the control plane first if it is not cached in K8S_BIN (minutes, once).
node-e2e: deps containerd2 cni-plugins logger k8s-control-plane
	cd examples/node && gofmt -l . | (! grep .) && go vet ./... && GOOS=darwin go build ./...
	cd examples/node && PODLIFE_K8S_BIN=$(K8S_BIN) PODLIFE_TEST_LOGGER=$(LOGGER) PODLIFE_TEST_CONTAINERD=$(CONTAINERD2) \
	  go test -count=1 -p 1 -timeout $(NODE_E2E_TIMEOUT) -v ./... 2>&1 | tee $(CURDIR)/.cache/node-e2e.log; \
	  $(call failures,$(CURDIR)/.cache/node-e2e.log)

k8s-control-plane:
	examples/node/hack/build-control-plane.sh $(K8S_BIN)

## conformance: Kubernetes' node conformance suite (e2e.test of k8s.io/kubernetes at K8S_VERSION,
## focus [NodeConformance] and sig-node's and the common volumes' [Conformance] specs, minus
## examples/node/conformance-skip.txt) against the control plane with one podlife-node, its test
## images built here and served by a local registry (no internet). e2e.test and agnhost are built
## once into K8S_BIN (see docs/kubelet-comparison.md for the times); the report, with table.md,
## goes to .cache/conformance. Not part of `make test`.
CONFORMANCE_TIMEOUT ?= 6h
conformance: deps containerd2 cni-plugins logger k8s-control-plane k8s-e2e
	cd examples/node && PODLIFE_CONFORMANCE=1 PODLIFE_CONFORMANCE_REPORT=$(CURDIR)/.cache/conformance \
	  PODLIFE_K8S_BIN=$(K8S_BIN) PODLIFE_TEST_LOGGER=$(LOGGER) PODLIFE_TEST_CONTAINERD=$(CONTAINERD2) \
	  go test -count=1 -p 1 -timeout $(CONFORMANCE_TIMEOUT) -v -run '^TestConformance$$' . 2>&1 | tee $(CURDIR)/.cache/conformance.log; \
	  rc=$${PIPESTATUS[0]}; grep -h '^=== conformance summary' $(CURDIR)/.cache/conformance.log; exit $$rc

k8s-e2e:
	examples/node/hack/build-e2e.sh $(K8S_BIN)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.cache/*')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...
	@# podlife runs pods only on Linux, but every package must still compile elsewhere (Linux-only
	@# code lives in _linux.go files with _other.go stubs), so that podlife/kube, hook and probe
	@# can be used on a developer's macOS.
	GOOS=darwin go build ./...
	GOOS=darwin go vet ./...

deps:
	@if [ "$$(id -u)" != 0 ]; then echo "podlife needs root (namespaces, mounts, CNI)"; exit 1; fi
	@# Debian's containerd (1.6, past its end of life) is installed for smoke-1.6 only: on a systemd
	@# host, the service its package starts would become the system containerd podlife uses first.
	@# When this target installed it, it disables that service (docs/hosts.md, "containerd versions").
	@if ! dpkg -s $(DEBS) >/dev/null 2>&1; then \
	  had=$$(dpkg -s containerd >/dev/null 2>&1 && echo yes); \
	  echo "installing: $(DEBS)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS) >/dev/null; \
	  if [ -z "$$had" ] && [ -d /run/systemd/system ]; then \
	    echo "disabling the containerd 1.6 service just installed: podlife starts containerd 2.x"; \
	    systemctl disable --now containerd.service >/dev/null 2>&1 || true; \
	  fi; \
	fi
	@command -v go >/dev/null || { echo "Go is required (/usr/local/go/bin)"; exit 1; }
	@mkdir -p .cache

containerd2: $(CONTAINERD2)

$(CONTAINERD2):
	@mkdir -p $(BIN)
	cd /tmp && GOBIN=$(BIN) GOFLAGS=-tags=no_btrfs go install \
	  github.com/containerd/containerd/v2/cmd/containerd@$(CONTAINERD_VERSION) \
	  github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$(CONTAINERD_VERSION)

## cni-plugins: build the CNI plugins go.mod pins (bridge, host-local, portmap, loopback) into .cache/cni/bin.
# Rebuilt every time (go build is a no-op when nothing changed): it must match this tree.
logger:
	@mkdir -p $(BIN)
	CGO_ENABLED=0 go build -trimpath -o $(LOGGER) ./internal/cmd/podlife-logger
	CGO_ENABLED=0 go build -trimpath -o $(EXECGATE) ./internal/cmd/podlife-execgate

cni-plugins: $(CNI_BIN)/.built

$(CNI_BIN)/.built: go.mod go.sum
	@mkdir -p $(CNI_BIN)
	CGO_ENABLED=0 go build -trimpath -o $(CNI_BIN)/ \
	  -ldflags "-X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=$$(go list -m -f '{{.Version}}' github.com/containernetworking/plugins)" \
	  tool
	@touch $@

clean:
	rm -rf .cache
