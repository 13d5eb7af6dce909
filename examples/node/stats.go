package main

import (
	"context"

	dto "github.com/prometheus/client_model/go"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"

	"github.com/podlife/podlife/examples/node/internal/stats"
)

// GetStatsSummary answers the kubelet's Summary API (/stats/summary) for the pods podlife
// runs (internal/stats).
func (pr *provider) GetStatsSummary(ctx context.Context) (*statsv1alpha1.Summary, error) {
	return pr.summary(ctx, true), nil
}

// GetMetricsResource answers the kubelet's resource metrics endpoint (/metrics/resource): the
// Summary's CPU and memory (without what walks the disk) in the kubelet's metric names.
func (pr *provider) GetMetricsResource(ctx context.Context) ([]*dto.MetricFamily, error) {
	return stats.Resource(pr.summary(ctx, false))
}

// summary builds the Summary; withDisk adds what Pod.DiskUsage walks the disk for.
func (pr *provider) summary(ctx context.Context, withDisk bool) *statsv1alpha1.Summary {
	return pr.stats.Summary(ctx, stats.Input{NodeName: pr.nodeName, StateDir: pr.stateDir,
		Pods: pr.statsPods(), Usage: pr.rt.Usage, Log: pr.log, WithDisk: withDisk})
}

// statsPods lists the pods podlife runs for the node.
func (pr *provider) statsPods() []stats.Pod {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	out := make([]stats.Pod, 0, len(pr.pods))
	for _, e := range pr.pods {
		if e.p == nil {
			continue
		}
		out = append(out, stats.Pod{
			Ref: statsv1alpha1.PodReference{Name: e.pod.Name, Namespace: e.pod.Namespace, UID: string(e.pod.UID)},
			Pod: e.p,
		})
	}
	return out
}
