// Command quickstart is the README's quick start as a program that runs: it starts a
// two-container pod (a busybox httpd and a sleeping app) from an image built out of the host's
// busybox-static, prints the pod's IP and a line it fetched from the pod's web server, then
// removes the pod and exits 0. Ctrl-C at any point also removes the pod.
//
// It needs root, runc, the CNI plugins and busybox-static. It uses the system containerd if one
// answers, else a private one under /var/lib/podlife (the containerd binary must be in PATH):
//
//	go run ./examples/quickstart
//
// The README's quick start is the text between the "quick start" markers below; a test checks
// that the two are the same and runs it against a private containerd.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// quick start: begin
func main() {
	// Ctrl-C cancels ctx; run still removes the pod before it returns.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, podlife.Config{}, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, cfg podlife.Config, out io.Writer) (err error) {
	rt, err := podlife.New(ctx, cfg) // the system containerd, or a private one it starts
	if err != nil {
		return err
	}
	defer rt.Close()

	// No registry needed: an image built from the host's busybox-static.
	const image = "podlife.local/busybox:1"
	var archive bytes.Buffer
	if err := podlifetest.BusyboxArchive(&archive, image); err != nil {
		return err
	}
	if _, err := rt.ImportImage(ctx, &archive); err != nil {
		return err
	}

	pod, err := rt.Run(ctx, podlife.PodSpec{
		Name: "web",
		// httpd and sleep ignore SIGTERM as a container's PID 1: stop kills them after 1 s, not 30.
		TerminationGracePeriod: new(time.Second),
		Containers: []podlife.ContainerSpec{{
			Name:  "proxy",
			Image: image,
			Command: []string{"sh", "-c",
				"mkdir -p /www && echo hello from the pod > /www/index.html && exec httpd -f -p 8080 -h /www"},
			// The next container starts once this hook passed: httpd answers (at most 10 s).
			PostStart: hook.Exec("sh", "-c",
				"for i in $(seq 100); do wget -q -O /dev/null http://127.0.0.1:8080/ && exit 0; sleep 0.1; done; exit 1"),
		}, {
			Name:    "app",
			Image:   image,
			Command: []string{"sleep", "3600"},
		}},
	})
	if pod != nil { // Run returns the pod and ctx's error if ctx ended first: remove it too
		defer func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			err = errors.Join(err, pod.Remove(rctx))
		}()
	}
	if err != nil {
		return err
	}

	ip := pod.Status().PodIP
	fmt.Fprintln(out, "pod IP:", ip)
	line, err := fetchLine(ctx, "http://"+netip.AddrPortFrom(ip, 8080).String()+"/")
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "from the pod:", line)
	return nil
}

// quick start: end

// fetchLine GETs url and returns the first line of the body.
func fetchLine(ctx context.Context, url string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
