package cri

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/internal/procutil"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// criNamespace is the containerd namespace the CRI plugin keeps everything in.
const criNamespace = "k8s.io"

// criDaemon is a second private containerd, of the same binary as the bench's, with the CRI
// plugin on: the kubelet's path. Its CNI network is a bridge conflist of its own (bridge name
// and subnet unique to the run) with the plugins podlife's bridge runs.
type criDaemon struct {
	dir, socket string
	// proc is containerd, started on an OS thread locked until it exits: Pdeathsig follows
	// the thread that started it, and a thread podlife's netns code ends would stop it.
	proc *procutil.Process
	conn *grpc.ClientConn
	rt   runtimeapi.RuntimeServiceClient
	img  runtimeapi.ImageServiceClient
	ctrd *client.Client
	net  criNetwork
	// cgroupParent holds every CRI pod's cgroup (one child per pod, as the kubelet's
	// /kubepods/besteffort/pod<UID>); removed when the daemon closes.
	cgroupParent string
	// runcRootExisted says whether runc's state dir for namespace k8s.io was there before, so
	// that close removes it only if this run created it.
	runcRootExisted bool
	// pause says what the sandbox image runs.
	pause string
}

// startCRI starts the CRI containerd in dir with the busybox image and a sandbox image
// imported into the k8s.io namespace, and waits until the CRI plugin reports its network ready.
func startCRI(ctx context.Context, e *measure.Env, bin, dir string) (_ *criDaemon, err error) {
	d := &criDaemon{dir: dir, socket: filepath.Join(dir, "c.sock"),
		cgroupParent: "/plb-cri-" + e.RunID, net: newCRINetwork(e, dir)}
	_, statErr := os.Stat(filepath.Join(runcStateRoot, criNamespace))
	d.runcRootExisted = statErr == nil
	defer func() {
		if err != nil {
			err = errors.Join(err, d.close())
		}
	}()
	if err := d.net.writeConfList(); err != nil {
		return nil, err
	}
	config := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(config, []byte(criConfig(dir, d.socket, d.net)), 0o600); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "containerd.log"))
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "--config", config)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = criSysProcAttr()
	if d.proc, err = procutil.Start(cmd); err != nil {
		return nil, fmt.Errorf("start CRI containerd: %w", err)
	}
	if d.conn, err = grpc.NewClient("unix://"+d.socket, grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
		return nil, err
	}
	d.rt, d.img = runtimeapi.NewRuntimeServiceClient(d.conn), runtimeapi.NewImageServiceClient(d.conn)
	if err := d.waitReady(ctx); err != nil {
		return nil, err
	}
	if d.ctrd, err = client.New(d.socket); err != nil {
		return nil, err
	}
	nsCtx := namespaces.WithNamespace(ctx, criNamespace)
	if _, err := podlifetest.ImportBusybox(nsCtx, d.ctrd, measure.Image); err != nil {
		return nil, fmt.Errorf("import %s: %w", measure.Image, err)
	}
	pause, err := buildPause(dir)
	if err != nil {
		return nil, err
	}
	d.pause = pause.what
	if _, err := podlifetest.ImportBusybox(nsCtx, d.ctrd, pauseImage,
		podlifetest.WithExecutable("pause", pause.data), podlifetest.WithEntrypoint(pause.entrypoint...)); err != nil {
		return nil, fmt.Errorf("import %s: %w", pauseImage, err)
	}
	// The CRI plugin learns of imported images from containerd's events: wait until it
	// knows both, as a node's images are known before its pods start.
	for _, ref := range []string{measure.Image, pauseImage} {
		if err := d.waitImage(ctx, ref); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// waitReady polls the CRI plugin's Status until its runtime and its network are ready.
func (d *criDaemon) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var last error
	for {
		st, err := d.rt.Status(ctx, &runtimeapi.StatusRequest{})
		if err == nil {
			last = fmt.Errorf("not ready: %v", st.GetStatus().GetConditions())
			ready := 0
			for _, c := range st.GetStatus().GetConditions() {
				// Other conditions (deprecation warnings: cgroup v1 here) do not stop pods.
				if (c.Type == runtimeapi.RuntimeReady || c.Type == runtimeapi.NetworkReady) && c.Status {
					ready++
				}
			}
			if ready == 2 {
				return nil
			}
		} else {
			last = err
		}
		select {
		case <-d.proc.Done():
			return fmt.Errorf("CRI containerd exited (%v); its log: %s", d.proc.Err(), d.logTail())
		case <-ctx.Done():
			return fmt.Errorf("CRI containerd not ready: %w; its log: %s", last, d.logTail())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitImage polls ImageStatus until the CRI plugin knows ref.
func (d *criDaemon) waitImage(ctx context.Context, ref string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		st, err := d.img.ImageStatus(ctx, &runtimeapi.ImageStatusRequest{Image: &runtimeapi.ImageSpec{Image: ref}})
		if err == nil && st.GetImage() != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRI plugin does not see image %s: %v", ref, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// logTail is the end of the daemon's log, for errors.
func (d *criDaemon) logTail() string {
	b, _ := os.ReadFile(filepath.Join(d.dir, "containerd.log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

// close removes every CRI pod left (a failed iteration's), stops the daemon and undoes what
// it and the CNI plugins left on the host: the bridge, cgroups, runc's state dir. It returns
// what it could not undo, and leaks found afterwards.
func (d *criDaemon) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var errs []error
	if d.rt != nil {
		if pods, err := d.rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{}); err == nil {
			for _, p := range pods.GetItems() {
				_, err1 := d.rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: p.Id})
				_, err2 := d.rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: p.Id})
				errs = append(errs, err1, err2)
			}
		}
	}
	if d.ctrd != nil {
		_ = d.ctrd.Close()
	}
	if d.conn != nil {
		_ = d.conn.Close()
	}
	if d.proc != nil {
		d.proc.Stop(20 * time.Second)
	}
	// Shims of this daemon name its socket; they exit once their tasks are deleted.
	shims := podlifetest.Processes("\x00-address\x00" + d.socket + "\x00")
	for _, pid := range shims {
		errs = append(errs, fmt.Errorf("leak: shim process %d of the CRI containerd", pid))
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	errs = append(errs, d.net.destroy(), removeCgroupTree(d.cgroupParent))
	if !d.runcRootExisted {
		if err := os.Remove(filepath.Join(runcStateRoot, criNamespace)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	// Unmount whatever is left under the daemon's dir (overlays, netns) and remove it.
	errs = append(errs, podlifetest.RemoveAll(d.dir))
	return errors.Join(errs...)
}
