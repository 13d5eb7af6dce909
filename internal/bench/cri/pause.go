package cri

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// pauseImage is the CRI row's sandbox image: busybox's layer plus /pause.
const pauseImage = "podlife.bench/pause:1"

// pauseSource is the sandbox's PID 1, written for the bench after what Kubernetes' pause
// does: exit 0 on SIGINT or SIGTERM, reap every child on SIGCHLD, otherwise sleep.
const pauseSource = `#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void quit(int sig) { (void)sig; _exit(0); }
static void reap(int sig) { (void)sig; while (waitpid(-1, 0, WNOHANG) > 0) {} }

int main(void) {
	struct sigaction sa = {0};
	sa.sa_handler = quit;
	sigaction(SIGINT, &sa, 0);
	sigaction(SIGTERM, &sa, 0);
	sa.sa_handler = reap;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, 0);
	for (;;) pause();
}
`

// pauseBinary is the sandbox program and how the image runs it.
type pauseBinary struct {
	data       []byte
	entrypoint []string
	// what says which one it is, for the report.
	what string
}

// buildPause compiles pauseSource with gcc into a static binary in dir. Without gcc, it falls
// back to catatonit in pause mode ("catatonit -P", statically linked, what podlife runs as
// the pause of a shared-PID pod).
func buildPause(dir string) (pauseBinary, error) {
	src, bin := filepath.Join(dir, "pause.c"), filepath.Join(dir, "pause")
	if err := os.WriteFile(src, []byte(pauseSource), 0o644); err != nil {
		return pauseBinary{}, err
	}
	out, gccErr := exec.Command("gcc", "-static", "-Os", "-s", "-o", bin, src).CombinedOutput()
	if gccErr == nil {
		data, err := os.ReadFile(bin)
		return pauseBinary{data: data, entrypoint: []string{"/pause"}, what: "pause.c (static, gcc)"}, err
	}
	for _, p := range []string{"catatonit", "/usr/libexec/podman/catatonit"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		data, err := os.ReadFile(path)
		return pauseBinary{data: data, entrypoint: []string{"/pause", "-P"}, what: "catatonit -P"}, err
	}
	return pauseBinary{}, errors.Join(fmt.Errorf("build the CRI sandbox's pause: gcc: %w: %s", gccErr, out),
		errors.New("and no catatonit to fall back to"))
}
