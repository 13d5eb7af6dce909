package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/podlife/podlife/internal/kubectl"
	"github.com/podlife/podlife/podlife"
)

// podList is `ps -o json`: a Kubernetes v1 List of Pods with metadata and status, in the API's
// shape, so that what consumes `kubectl get pods -o json` can read it.
type podList struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Items      []podJSON `json:"items"`
}

type podJSON struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   podMeta           `json:"metadata"`
	Status     podlife.PodStatus `json:"status"`
}

type podMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	UID               string            `json:"uid"`
	CreationTimestamp time.Time         `json:"creationTimestamp"`
	Annotations       map[string]string `json:"annotations,omitempty"`
}

// ps lists every pod in the state dir, whichever process manages it.
func ps(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ps", flag.ContinueOnError)
	fs.SetOutput(stderr)
	output := fs.String("o", "", `output format: "" (a table), "wide" (with IP, CPU time and memory working set) or "json" (a Kubernetes List of Pods)`)
	c := addCommon(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rt, err := c.runtime(ctx, stderr)
	if err != nil {
		return fail(stderr, "ps", err)
	}
	defer rt.Close()
	recs, err := rt.ListPods(ctx)
	if err != nil {
		return fail(stderr, "ps", err)
	}
	if *output == "json" {
		list := podList{APIVersion: "v1", Kind: "List", Items: []podJSON{}}
		for _, r := range recs {
			meta := podMeta{Name: r.Name, Namespace: r.Namespace, UID: r.UID, CreationTimestamp: r.Created}
			meta.Annotations = map[string]string{"podlife.io/manager-pid": fmt.Sprint(r.Manager)}
			list.Items = append(list.Items, podJSON{APIVersion: "v1", Kind: "Pod", Metadata: meta, Status: r.Status})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return fail(stderr, "ps", err)
		}
		return 0
	}
	wide := *output == "wide"
	var usage map[string]podlife.PodUsage // by pod UID
	if wide {
		usage = usageByUID(ctx, rt)
	}
	fmt.Fprintf(stdout, "%-24s %-6s %-20s %-9s %-8s %s", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "MANAGER")
	if wide {
		fmt.Fprintf(stdout, "%*s %-15s %-10s %s", 8-len("MANAGER"), "", "IP", "CPU-TIME", "MEMORY(bytes)")
	}
	fmt.Fprintln(stdout)
	for _, r := range recs {
		st := r.Status
		ready, total := st.ReadyCount()
		manager := fmt.Sprint(r.Manager)
		if !r.Managed() {
			manager = "none"
		}
		fmt.Fprintf(stdout, "%-24s %-6s %-20s %-9d %-8s %s", r.Name, fmt.Sprintf("%d/%d", ready, total), kubectl.Status(st),
			restarts(st), time.Since(r.Created).Truncate(time.Second), manager)
		if wide {
			fmt.Fprintf(stdout, "%*s %-15s %s", 8-len(manager), "", podIP(st), usageColumns(usage[r.UID]))
		}
		fmt.Fprintln(stdout)
	}
	printPoolMembers(ctx, rt, stdout)
	return 0
}

// podIP is the pod's IP, "<none>" if it has none.
func podIP(st podlife.PodStatus) string {
	if !st.PodIP.IsValid() {
		return "<none>"
	}
	return st.PodIP.String()
}

// usageByUID samples every pod's usage at once (Runtime.Usage), by pod UID; nil if it fails.
func usageByUID(ctx context.Context, rt *podlife.Runtime) map[string]podlife.PodUsage {
	all, err := rt.Usage(ctx)
	if err != nil {
		return nil
	}
	out := make(map[string]podlife.PodUsage, len(all))
	for _, u := range all {
		out[u.UID] = u
	}
	return out
}

// usageColumns are the CPU time and working set of the pod's running containers (one
// sample: no rate, see top), "-" if it has none.
func usageColumns(u podlife.PodUsage) string {
	if len(u.Containers) == 0 {
		return fmt.Sprintf("%-10s %s", "-", "-")
	}
	return fmt.Sprintf("%-10s %s", u.CPU().Round(10*time.Millisecond), mebibytes(u.MemoryWorkingSet()))
}

func restarts(st podlife.PodStatus) int {
	n := 0
	for _, c := range append(st.InitContainerStatuses, st.ContainerStatuses...) {
		n += c.RestartCount
	}
	return n
}
