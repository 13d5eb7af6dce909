// Package metrics exports what a podlife Runtime's pods use and how they fare as Prometheus
// metrics, with the names cAdvisor, the kubelet and kube-state-metrics give them where one
// exists, so that the dashboards and alerts written for a Kubernetes node work unchanged:
//
//	container_cpu_usage_seconds_total{namespace,pod,container}        counter
//	container_memory_working_set_bytes{namespace,pod,container}       gauge (what the kubelet evicts on)
//	container_memory_usage_bytes{namespace,pod,container}             gauge
//	container_memory_rss{namespace,pod,container}                     gauge
//	container_spec_memory_limit_bytes{namespace,pod,container}        gauge (containers with a limit)
//	container_oom_events_total{namespace,pod,container}               counter
//	container_processes{namespace,pod,container}                      gauge
//	container_network_{receive,transmit}_{bytes,packets,errors,packets_dropped}_total{namespace,pod,interface}
//	kube_pod_container_status_restarts_total{namespace,pod,container} counter
//	kube_pod_container_status_ready{namespace,pod,container}          gauge
//	kube_pod_container_status_running{namespace,pod,container}        gauge
//	kube_pod_container_status_last_terminated_reason{namespace,pod,container,reason} gauge
//	kube_pod_status_phase{namespace,pod,phase}                        gauge
//	podlife_pod_managed{namespace,pod}                                gauge (1 if a live process supervises it)
//	podlife_pod_log_bytes{namespace,pod}                              gauge (its log files on disk)
//	podlife_pod_volume_bytes{namespace,pod}                           gauge (its emptyDir and files volumes on disk)
//	podlife_scrape_errors_total                                       counter
//	podlife_events_total{type,reason}                                 counter (with Collector.CountEvents)
//	kubelet_pod_start_duration_seconds                                histogram (with Collector.CountEvents)
//	podlife_start_step_duration_seconds{step}                         histogram (with Collector.CountEvents: sandbox, create, start, post_start)
//	prober_probe_total{probe_type,result,container,pod,namespace,pod_uid} counter (with Collector.CountEvents)
//	prober_probe_duration_seconds{probe_type,container,pod,namespace}  histogram (with Collector.CountEvents)
//
// The container_* series are those of the containers' current attempts: a counter starts
// again from 0 when its container restarts, which Prometheus's rate() takes as a reset, as it
// does for the kubelet's. Interfaces are the pod's own, loopback excluded. Restarts, back-offs,
// adoptions and containerd's outages are podlife_events_total's reasons (BackOff,
// Adopted, ContainerdUnavailable, ContainerdRecovered, ...); OOM kills are container_oom_events_total
// and kube_pod_container_status_last_terminated_reason{reason="OOMKilled"}.
//
// It is a package of its own so that a program that imports only podlife does not build
// client_golang.
package metrics
