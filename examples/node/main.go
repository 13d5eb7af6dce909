// Command podlife-node joins this host to a Kubernetes cluster as a node, and runs the pods the
// control plane schedules onto it with podlife: a virtual-kubelet provider backed by a podlife
// Runtime (see README.md and docs/scaling-out.md).
//
//	podlife-node --kubeconfig FILE [--node-name N] [flags]
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	vklog "github.com/virtual-kubelet/virtual-kubelet/log"
	vkslog "github.com/virtual-kubelet/virtual-kubelet/log/slog"
	"github.com/virtual-kubelet/virtual-kubelet/node/nodeutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/examples/node/internal/kubeletauth"
	"github.com/podlife/podlife/examples/node/internal/nodestatus"
	"github.com/podlife/podlife/examples/node/internal/serviceenv"
	"github.com/podlife/podlife/examples/node/internal/volumes"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/podlife/podsecurity"
)

// version is podlife's version as the node reports it (kubectl get nodes' VERSION column).
var version = "podlife-dev"

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "podlife-node:", err)
		os.Exit(1)
	}
}

// listFlag is a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

type config struct {
	kubeconfig, nodeName, nodeIP, listen string
	clientCA, tlsCert, tlsKey            string
	insecureKubeletAPI                   bool
	taints, labels                       listFlag
	maxPods                              int64
	stateDir, containerd, binary         string
	namespace, logger                    string
	bridge, subnet, cniPath              string
	logLevel                             string
	podSecurity                          string
	allowPrivileged                      bool
	tokenMaxAge                          time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	host, _ := os.Hostname()
	fs := flag.NewFlagSet("podlife-node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster to join (required)")
	fs.StringVar(&c.nodeName, "node-name", strings.ToLower(host), "name of the Node")
	fs.StringVar(&c.nodeIP, "node-ip", "", "address the API server reaches the kubelet API at (default: the host's first global IPv4 address)")
	fs.StringVar(&c.listen, "listen", ":10250", "address the kubelet API (logs, exec) listens on; its port is the one the node advertises")
	fs.StringVar(&c.clientCA, "client-ca", "", "CA of the client certificates the kubelet API authenticates (the one that signed the API server's --kubelet-client-certificate); each request is then authorized by the API server (SubjectAccessReview on nodes/proxy, nodes/log...)")
	fs.BoolVar(&c.insecureKubeletAPI, "insecure-kubelet-api", false, "serve the kubelet API (exec!) without authentication or authorization: for a lab only")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "serving certificate of the kubelet API (default: a generated self-signed one)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "key of --tls-cert")
	fs.Var(&c.taints, "taint", "taint of the node, key[=value]:Effect (repeatable)")
	fs.Var(&c.labels, "label", "label of the node, key=value (repeatable)")
	fs.Int64Var(&c.maxPods, "max-pods", 110, "pods the node accepts (its pods capacity)")
	fs.StringVar(&c.stateDir, "state-dir", "/var/lib/podlife-node", "podlife state directory")
	fs.StringVar(&c.containerd, "containerd", "", "containerd socket (default: the system's, else a private containerd of the state dir)")
	fs.StringVar(&c.binary, "containerd-binary", "", "containerd binary for the private containerd (default: containerd in PATH)")
	fs.StringVar(&c.namespace, "namespace", podlife.DefaultNamespace, "containerd namespace")
	fs.StringVar(&c.logger, "container-logger", "", "podlife-logger binary (Config.ContainerLogger); empty: this process copies output")
	// The cluster's PodSecurity admission already enforced each namespace's level before the
	// pod reached this node, as it does for a kubelet: the node accepts what it admitted unless
	// the operator asks for a node-wide floor.
	fs.StringVar(&c.podSecurity, "pod-security", string(podsecurity.Privileged), `Pod Security Standards level every pod on this node must meet on top of the cluster's admission: "privileged", "baseline" or "restricted"`)
	// A kubelet runs privileged containers and pods in the host's PID and IPC namespaces
	// (its --allow-privileged and --host-*-sources flags are gone): the cluster's PodSecurity
	// admission decides who may. false keeps podlife's own gates, which refuse them.
	fs.BoolVar(&c.allowPrivileged, "allow-privileged", true, "run privileged containers and pods in the host's PID and IPC namespaces, as a kubelet does (the cluster's PodSecurity admission decides who may); false refuses them on this node")
	fs.StringVar(&c.bridge, "bridge", "", "CNI bridge device of the pods (default podlife's, podlife0)")
	fs.StringVar(&c.subnet, "subnet", "", "pod subnet (default podlife's, 10.88.0.0/16)")
	fs.StringVar(&c.cniPath, "cni-path", os.Getenv("PODLIFE_CNI_PATH"), "colon-separated CNI plugin directories")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.DurationVar(&c.tokenMaxAge, "token-max-age", volumes.DefaultTokenMaxAge, "age at which a projected service-account token is refreshed even if far from its expiry (the kubelet's 24h; tokens are refreshed at 80% of their life anyway)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.kubeconfig == "" {
		return c, errors.New("--kubeconfig is required")
	}
	if c.tokenMaxAge <= 0 {
		return c, errors.New("--token-max-age must be positive")
	}
	if c.clientCA == "" && !c.insecureKubeletAPI {
		return c, errors.New("--client-ca is required (or --insecure-kubelet-api, which lets anyone who reaches the port exec in pods)")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	vklog.L = vkslog.FromSlog(log.With("component", "virtual-kubelet"))
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	_, portStr, err := net.SplitHostPort(c.listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	if c.nodeIP == "" {
		if c.nodeIP, err = hostIP(); err != nil {
			return err
		}
	}
	taints := make([]corev1.Taint, 0, len(c.taints))
	for _, s := range c.taints {
		t, err := nodestatus.ParseTaint(s)
		if err != nil {
			return err
		}
		taints = append(taints, t)
	}
	labels := map[string]string{}
	for _, s := range c.labels {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("label %q: want key=value", s)
		}
		labels[k] = v
	}

	switch podsecurity.Level(c.podSecurity) {
	case podsecurity.Privileged, podsecurity.Baseline, podsecurity.Restricted:
	default:
		return fmt.Errorf("--pod-security %q: want privileged, baseline or restricted", c.podSecurity)
	}
	rtCfg := podlife.Config{
		Address:         c.containerd,
		Embedded:        podlife.EmbeddedConfig{Binary: c.binary},
		Namespace:       c.namespace,
		StateDir:        c.stateDir,
		ContainerLogger: c.logger,
		Logger:          log.With("component", "podlife"),
		Bridge:          cni.BridgeConfig{Bridge: c.bridge},
		// The provider checks the level on the pods as converted, before their configMap,
		// secret, downwardAPI and projected volumes become host directories (provider.go).
		PodSecurity: podsecurity.Privileged,
		// A failed pull waits in ErrImagePull / ImagePullBackOff and is tried again with the
		// kubelet's back-off (10 s to 300 s), the pod Pending, whatever its restart policy.
		ImagePullBackOff: &podlife.Backoff{},
		// no_new_privs only when allowPrivilegeEscalation is false, as the kubelet: a node
		// standing in for one must not harden what pods expect of any node.
		AllowPrivilegeEscalationByDefault: true,
		AllowPrivileged:                   c.allowPrivileged,
		AllowHostNamespaces:               c.allowPrivileged,
	}
	if c.bridge != "" {
		rtCfg.Bridge.Name = c.bridge
	}
	if c.subnet != "" {
		if rtCfg.Bridge.Subnet, err = netip.ParsePrefix(c.subnet); err != nil {
			return fmt.Errorf("--subnet: %w", err)
		}
	}
	if c.cniPath != "" {
		rtCfg.Bridge.PluginDirs = filepath.SplitList(c.cniPath)
	}
	// The downward API's status.hostIP is the node's address, as the node reports it.
	nodeAddr, err := netip.ParseAddr(c.nodeIP)
	if err != nil {
		return fmt.Errorf("--node-ip: %w", err)
	}
	rtCfg.HostIPs = []netip.Addr{nodeAddr}
	rt, err := podlife.New(ctx, rtCfg)
	if err != nil {
		return fmt.Errorf("podlife: %w", err)
	}
	defer rt.Close()

	restCfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	client, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return err
	}
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	defer broadcaster.Shutdown()
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "podlife", Host: c.nodeName})

	tlsOpts, err := tlsOptions(c)
	if err != nil {
		return err
	}
	var tlsCfg nodeutil.NodeConfig
	if err := nodeutil.WithTLSConfig(tlsOpts...)(&tlsCfg); err != nil {
		return err
	}
	auth := nodeutil.NoAuth()
	if !c.insecureKubeletAPI {
		if auth, err = kubeletauth.New(ctx, client, c.nodeName, c.clientCA); err != nil {
			return err
		}
	}
	nodeObj := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: c.nodeName, Labels: map[string]string{"type": "virtual-kubelet"}}}
	nodestatus.Options{
		Name: c.nodeName, IP: c.nodeIP, Port: int32(port), Labels: labels, Taints: taints,
		MaxPods: c.maxPods, StateDir: c.stateDir, Version: version,
	}.Configure(nodeObj)
	prov := newProvider(rt, objectSource{client: client.CoreV1(), forbiddenWait: 10 * time.Second}, recorder,
		log.With("component", "provider"), c.nodeIP, kube.Options{Allocatable: nodeObj.Status.Allocatable})
	prov.stateDir = c.stateDir
	prov.nodeName = c.nodeName
	prov.podSecurity = podsecurity.Level(c.podSecurity)
	prov.tokens = volumes.NewProjector(client.CoreV1(), filepath.Join(c.stateDir, "k8s-volumes"), c.tokenMaxAge, log.With("component", "tokens"))
	// The containers' Service variables (FOO_SERVICE_HOST...) come from a cache of the
	// cluster's Services, as a kubelet's (internal/serviceenv).
	svcInformers := informers.NewSharedInformerFactory(client, 0)
	svcs := svcInformers.Core().V1().Services()
	prov.services = serviceenv.New(svcs.Lister(), svcs.Informer().HasSynced)
	svcInformers.Start(ctx.Done())
	defer prov.close() // before rt.Close: the starts in progress are left to the next process
	n, err := newKubeletNode(kubeletNodeConfig{
		client: client, node: nodeObj, provider: prov,
		nodeProvider: &nodestatus.Provider{Node: nodeObj, StateDir: c.stateDir, Period: 10 * time.Second},
		recorder:     recorder, listen: c.listen, tls: tlsCfg.TLSConfig, auth: auth,
		podChanged: prov.apiPodChanged,
	})
	if err != nil {
		return err
	}
	go prov.watch(ctx, 5*time.Second)
	go func() {
		select {
		case <-ctx.Done():
		case <-n.Ready():
			log.Info("node ready", "node", c.nodeName, "kubelet-api", c.listen)
			// Pods of a previous process of the node deleted meanwhile (the others are
			// adopted by CreatePod).
			prov.reapDeleted(ctx, client.CoreV1().Pods)
		}
	}()
	err = n.Run(ctx)
	if ctx.Err() != nil {
		// Stopped by a signal: the pods keep running (podlife's pods outlive their manager).
		log.Info("stopping; pods keep running", "node", c.nodeName)
		return nil
	}
	return err
}

// tlsOptions returns the kubelet API's TLS settings: its serving certificate (given, or
// generated self-signed for the node's address). A client certificate is requested, not
// required (a client may authenticate with a bearer token instead): kubeletauth.New verifies it
// against --client-ca.
func tlsOptions(c config) ([]func(*tls.Config) error, error) {
	var opts []func(*tls.Config) error
	if c.tlsCert != "" {
		opts = append(opts, nodeutil.WithKeyPairFromPath(c.tlsCert, c.tlsKey))
	} else {
		cert, err := kubeletauth.NewCertificate(c.nodeName, false, []string{c.nodeIP, c.nodeName}, nil)
		if err != nil {
			return nil, err
		}
		pair, err := cert.TLS()
		if err != nil {
			return nil, err
		}
		opts = append(opts, func(cfg *tls.Config) error {
			cfg.Certificates = append(cfg.Certificates, pair)
			return nil
		})
	}
	return opts, nil
}

// hostIP returns the host's first global unicast IPv4 address.
func hostIP() (string, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
			return n.IP.String(), nil
		}
	}
	return "", errors.New("no global IPv4 address: give --node-ip")
}
