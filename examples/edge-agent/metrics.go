package main

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/metrics"
)

// podMetrics is the registry of what the agent's pods use and how they fare (see package
// podlife/metrics), and the Go runtime's and this process's own metrics.
func podMetrics(rt *podlife.Runtime) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector(rt), prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return reg
}

// withMetrics serves GET /metrics (Prometheus's text format) from g, and the rest with status.
func withMetrics(status http.Handler, g prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	mux.Handle("/", status)
	return mux
}
