package breakdown

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cpuSampler samples where the stack's CPU goes with perf(1): `perf record` on this process and
// its containerd, following every process they start (the shims, runc, the CNI plugins, the
// loggers), one sample per perfPeriod of CPU time (the cpu-clock software event, so it works in
// a VM without hardware counters), stamped with CLOCK_MONOTONIC so that samples fall into the
// bench's phases.
type cpuSampler struct {
	cmd  *exec.Cmd
	data string
	out  bytes.Buffer
}

// perfPeriod is the CPU time one sample stands for.
const perfPeriod = 250 * time.Microsecond

func startSampler(ctx context.Context, data string, pids ...int) (*cpuSampler, error) {
	bin, err := exec.LookPath("perf")
	if err != nil {
		return nil, fmt.Errorf("perf(1) not found (Debian: apt-get install linux-perf): %w", err)
	}
	s := &cpuSampler{data: data}
	var list []string
	for _, p := range pids {
		list = append(list, strconv.Itoa(p))
	}
	s.cmd = exec.Command(bin, "record", "-q", "-e", "cpu-clock", "-c", strconv.FormatInt(perfPeriod.Nanoseconds(), 10),
		"-k", "CLOCK_MONOTONIC", "-g", "-p", strings.Join(list, ","), "-o", s.data)
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	// perf attaches within a moment; its header is in the file once it has.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if fi, err := os.Stat(s.data); err == nil && fi.Size() > 0 {
			time.Sleep(200 * time.Millisecond)
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("perf record did not start: %s", s.out.String())
}

// stop ends the recording.
func (s *cpuSampler) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		// perf record ends on SIGINT, having written its file.
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGINT {
			err = nil
		}
		if err != nil {
			return fmt.Errorf("perf record: %w: %s", err, s.out.String())
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
		return fmt.Errorf("perf record did not stop: %s", s.out.String())
	}
}

// perfSample is one sample: which process was on a CPU, and when (CLOCK_MONOTONIC).
type perfSample struct {
	comm string
	pid  int
	at   time.Duration
}

// samples reads the recording (after stop).
func (s *cpuSampler) samples() ([]perfSample, error) {
	cmd := exec.Command("perf", "script", "-i", s.data, "-F", "comm,pid,time")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("perf script: %w: %s", err, stderr.String())
	}
	var all []perfSample
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// "<comm> <pid> <secs>.<usecs>:"; comm may hold spaces.
		f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(sc.Text()), ":"))
		if len(f) < 3 {
			continue
		}
		secs, err1 := strconv.ParseFloat(f[len(f)-1], 64)
		pid, err2 := strconv.Atoi(f[len(f)-2])
		if err1 != nil || err2 != nil {
			continue
		}
		all = append(all, perfSample{comm: strings.Join(f[:len(f)-2], " "), pid: pid, at: time.Duration(secs * 1e9)})
	}
	return all, sc.Err()
}

// monotonic is CLOCK_MONOTONIC now, perf's clock for the samples.
func monotonic() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}
