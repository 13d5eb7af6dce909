package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"runtime"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/node"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	"github.com/virtual-kubelet/virtual-kubelet/node/nodeutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
)

// kubeletNode is virtual-kubelet's node: its pod controller (the pods bound to the node, run
// by the provider), its node controller (registration, status, lease) and the kubelet API
// (logs, exec, attach, port-forward, pods, stats) behind auth.
//
// It is assembled as nodeutil.NewNode assembles it, except for one thing: nodeutil.NewNode
// also starts informers of every ConfigMap, Secret and Service in the cluster, which a node
// identity (system:node:NAME, checked by the Node authorizer) may not list, and which would
// hand every Secret of the cluster to every node. The node resolves its pods' ConfigMaps and
// Secrets itself (objectSource, one GET per object) and skips virtual-kubelet's downward API
// resolution, the only user of those informers: the pod controller, which requires them, gets
// them from a factory that is never started.
type kubeletNode struct {
	pods    informers.SharedInformerFactory
	pc      *node.PodController
	nc      *node.NodeController
	server  *http.Server
	listen  string
	workers int
	ready   chan struct{}
}

// kubeletNodeConfig is what a kubeletNode runs.
type kubeletNodeConfig struct {
	client       kubernetes.Interface
	node         *corev1.Node // as registered
	provider     nodeutil.Provider
	nodeProvider node.NodeProvider
	recorder     record.EventRecorder
	// podChanged, if set, is called with each pod of the node as the API server has it, when
	// it changed (status included): the conditions other clients set (conditions.go).
	podChanged func(*corev1.Pod)
	listen     string      // the kubelet API's address
	tls        *tls.Config // the kubelet API's
	auth       nodeutil.Auth
}

func newKubeletNode(cfg kubeletNodeConfig) (*kubeletNode, error) {
	podInformers := informers.NewSharedInformerFactoryWithOptions(cfg.client, time.Minute, nodeutil.PodInformerFilter(cfg.node.Name))
	pods := podInformers.Core().V1().Pods()
	never := informers.NewSharedInformerFactory(cfg.client, 0) // never started: see kubeletNode
	if f := cfg.podChanged; f != nil {
		if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, obj any) {
				if pod, ok := obj.(*corev1.Pod); ok {
					f(pod)
				}
			},
		}); err != nil {
			return nil, fmt.Errorf("pod informer: %w", err)
		}
	}

	p := cfg.provider
	mux := http.NewServeMux()
	mux.Handle("/", api.PodHandler(api.PodHandlerConfig{
		RunInContainer:    p.RunInContainer,
		AttachToContainer: p.AttachToContainer,
		GetContainerLogs:  p.GetContainerLogs,
		GetPods:           p.GetPods,
		GetPodsFromKubernetes: func(context.Context) ([]*corev1.Pod, error) {
			return pods.Lister().List(labels.Everything())
		},
		GetStatsSummary:    p.GetStatsSummary,
		GetMetricsResource: p.GetMetricsResource,
		PortForward:        p.PortForward,
	}, true))

	nc, err := node.NewNodeController(cfg.nodeProvider, cfg.node, cfg.client.CoreV1().Nodes(),
		node.WithNodeEnableLeaseV1(nodeutil.NodeLeaseV1Client(cfg.client), node.DefaultLeaseDuration))
	if err != nil {
		return nil, fmt.Errorf("node controller: %w", err)
	}
	pc, err := node.NewPodController(node.PodControllerConfig{
		PodClient:                 cfg.client.CoreV1(),
		EventRecorder:             cfg.recorder,
		Provider:                  p,
		PodInformer:               pods,
		SecretInformer:            never.Core().V1().Secrets(),
		ConfigMapInformer:         never.Core().V1().ConfigMaps(),
		ServiceInformer:           never.Core().V1().Services(),
		SkipDownwardAPIResolution: true,
	})
	if err != nil {
		return nil, fmt.Errorf("pod controller: %w", err)
	}
	return &kubeletNode{
		pods: podInformers, pc: pc, nc: nc, listen: cfg.listen, workers: runtime.NumCPU(),
		server: &http.Server{Handler: nodeutil.WithAuth(cfg.auth, mux), TLSConfig: cfg.tls, ReadHeaderTimeout: 30 * time.Second},
		ready:  make(chan struct{}),
	}, nil
}

// Ready is closed once the node is registered and its pod controller runs.
func (n *kubeletNode) Ready() <-chan struct{} { return n.ready }

// Run serves the kubelet API and runs the controllers until ctx ends or one of them fails.
func (n *kubeletNode) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l, err := tls.Listen("tcp", n.listen, n.server.TLSConfig)
	if err != nil {
		return fmt.Errorf("kubelet API: %w", err)
	}
	go n.server.Serve(l) //nolint:errcheck // ends with Close
	defer n.server.Close()

	n.pods.Start(ctx.Done())
	go n.pc.Run(ctx, n.workers) //nolint:errcheck // its Err
	defer func() { cancel(); <-n.pc.Done() }()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-n.pc.Done():
		return n.pc.Err()
	case <-n.pc.Ready():
	}
	go n.nc.Run(ctx) //nolint:errcheck // its Err
	defer func() { cancel(); <-n.nc.Done() }()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-n.nc.Done():
		return n.nc.Err()
	case <-n.nc.Ready():
	}
	close(n.ready)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-n.nc.Done():
		return n.nc.Err()
	case <-n.pc.Done():
		return n.pc.Err()
	}
}
