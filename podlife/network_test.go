package podlife_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
)

func freePort(t *testing.T) uint16 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

// get fetches url with a few bounded retries (a server may still be binding its port).
func get(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Timeout: 2 * time.Second}
	var last error
	for range 20 {
		resp, err := c.Get(url)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return string(b)
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("GET %s: %v", url, last)
	return ""
}

// The pod gets an IP on the bridge; its containers reach each other over localhost; the host
// reaches the pod IP; a hostPort maps; hostname and /etc/hosts are the pod's.
func TestSmokeNetwork(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hostPort := freePort(t)
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "net", Volumes: sharedVolume(), TerminationGracePeriod: ptr(5 * time.Second),
		RestartPolicy: podlife.RestartNever,
		Containers: []podlife.ContainerSpec{
			{
				Name: "web", Image: testImage,
				Command: []string{"/bin/sh", "-c", "mkdir -p /www && echo hello-from-pod > /www/index.html && " +
					"trap 'exit 0' TERM; httpd -f -p 8080 -h /www & wait"},
				Ports: []podlife.ContainerPort{{ContainerPort: 8080, HostPort: hostPort}},
			},
			{
				Name: "client", Image: testImage, VolumeMounts: sharedMount,
				Command: []string{"/bin/sh", "-c", "for i in $(seq 100); do " +
					"wget -q -O /shared/fetched http://127.0.0.1:8080/ && break; sleep 0.1; done; " +
					"hostname > /shared/hostname; cat /etc/hosts > /shared/hosts; test -s /shared/fetched"},
			},
		},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[1].State.Terminated != nil })
	if err != nil {
		t.Fatalf("client did not finish: %v", err)
	}
	if code := st.ContainerStatuses[1].State.Terminated.ExitCode; code != 0 {
		t.Fatalf("client exited %d: it could not reach the web container over localhost", code)
	}
	vol := filepath.Join(pod.Sandbox().Dir(), "volumes", "shared")
	if b, _ := os.ReadFile(filepath.Join(vol, "fetched")); strings.TrimSpace(string(b)) != "hello-from-pod" {
		t.Errorf("fetched over localhost: %q", b)
	}
	ip := st.PodIP
	if !ip.IsValid() || !h.bridge.Subnet.Contains(ip) {
		t.Fatalf("pod IP %v not in the bridge subnet %v", ip, h.bridge.Subnet)
	}
	if b, _ := os.ReadFile(filepath.Join(vol, "hostname")); strings.TrimSpace(string(b)) != "net" {
		t.Errorf("hostname in the pod: %q, want net", b)
	}
	if b, _ := os.ReadFile(filepath.Join(vol, "hosts")); !strings.Contains(string(b), ip.String()+"\tnet") {
		t.Errorf("/etc/hosts lacks the pod IP and hostname:\n%s", b)
	}
	if body := get(t, fmt.Sprintf("http://%s:8080/", ip)); strings.TrimSpace(body) != "hello-from-pod" {
		t.Errorf("host -> pod IP: %q", body)
	}
	if body := get(t, fmt.Sprintf("http://127.0.0.1:%d/", hostPort)); strings.TrimSpace(body) != "hello-from-pod" {
		t.Errorf("host -> hostPort %d: %q", hostPort, body)
	}
}
