package main

import (
	"context"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/metrics"
)

// podMetrics is the registry of what the agent's pods use and how they fare (see package
// podlife/metrics), their events counted until ctx ends, and the Go runtime's and this
// process's own metrics.
func podMetrics(ctx context.Context, rt *podlife.Runtime) *prometheus.Registry {
	coll := metrics.NewCollector(rt)
	go coll.CountEvents(ctx)
	reg := prometheus.NewRegistry()
	reg.MustRegister(coll, prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return reg
}

// withMetrics serves GET /metrics (Prometheus's text format) from g, and the rest with status.
func withMetrics(status http.Handler, g prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	mux.Handle("/", status)
	return mux
}
