package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// The agent's status listener serves its pods' metrics: the running pod's container has a CPU
// counter and a working set, and the pod is managed.
func TestAgentServesMetrics(t *testing.T) {
	e := newAgentEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	e.write("a.yaml", "alpha", "v1")
	e.start("--listen", addr)
	e.waitFor("alpha running", func() bool { a, ok := e.pod("alpha"); return running(a, ok, "", stateManaged) })

	want := []*regexp.Regexp{
		regexp.MustCompile(`(?m)^container_cpu_usage_seconds_total\{container="main",namespace="[^"]*",pod="alpha-edge"\} [0-9.e+-]+$`),
		regexp.MustCompile(`(?m)^container_memory_working_set_bytes\{container="main",namespace="[^"]*",pod="alpha-edge"\} [1-9][0-9.e+]*$`),
		regexp.MustCompile(`(?m)^podlife_pod_managed\{namespace="[^"]*",pod="alpha-edge"\} 1$`),
		regexp.MustCompile(`(?m)^kube_pod_container_status_restarts_total\{container="main",namespace="[^"]*",pod="alpha-edge"\} 0$`),
		regexp.MustCompile(`(?m)^podlife_events_total\{reason="Started",type="Normal"\} [1-9]`),
		regexp.MustCompile(`(?m)^container_network_receive_bytes_total\{interface="eth0",namespace="[^"]*",pod="alpha-edge"\} \d`),
	}
	var body string
	deadline := time.Now().Add(time.Minute)
	for {
		body = scrape(t, "http://"+addr+"/metrics")
		missing := 0
		for _, re := range want {
			if !re.MatchString(body) {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /metrics lacks %d of the series wanted:\n%s", missing, body)
		}
		time.Sleep(200 * time.Millisecond) // the status listener starts after the pods' adoption
	}

	if err := os.Remove(filepath.Join(e.manifests, "a.yaml")); err != nil {
		t.Fatal(err)
	}
	e.waitFor("alpha gone", func() bool { _, ok := e.pod("alpha"); return !ok })
	e.checkPodGone("alpha-edge")
}

// scrape GETs url, "" if it does not answer yet.
func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		return fmt.Sprintf("status %d: %v", resp.StatusCode, err)
	}
	return string(b)
}
