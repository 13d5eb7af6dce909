package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/podlife/podlife/internal/kubectl"
	"github.com/podlife/podlife/podlife"
)

// printer writes events and status lines, as text or JSON lines.
type printer struct {
	mu   sync.Mutex
	w    io.Writer
	json bool
	last map[string]string
}

func (p *printer) event(e podlife.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		_ = json.NewEncoder(p.w).Encode(e)
		return
	}
	fmt.Fprintln(p.w, e)
}

func (p *printer) log(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		_ = json.NewEncoder(p.w).Encode(map[string]string{"kind": "Log", "line": line})
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *printer) status(st podlife.PodStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		return
	}
	ready, total := st.ReadyCount()
	restarts := 0
	for _, c := range append(st.InitContainerStatuses, st.ContainerStatuses...) {
		restarts += c.RestartCount
	}
	line := fmt.Sprintf("%-24s %-6s %-20s %-9d", st.Name, fmt.Sprintf("%d/%d", ready, total), kubectl.Status(st), restarts)
	if p.last == nil {
		p.last = map[string]string{}
	}
	if p.last[st.Name] == line {
		return
	}
	if len(p.last) == 0 {
		fmt.Fprintf(p.w, "%-24s %-6s %-20s %-9s %s\n", "NAME", "READY", "STATUS", "RESTARTS", "AGE")
	}
	p.last[st.Name] = line
	fmt.Fprintf(p.w, "%s %s\n", line, time.Since(st.StartTime).Truncate(time.Second))
}

func (p *printer) final(sts []podlife.PodStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.json {
		for _, st := range sts {
			fmt.Fprintf(p.w, "pod %s: %s\n", st.Name, st.Phase)
		}
		return
	}
	for _, st := range sts {
		if err := json.NewEncoder(p.w).Encode(map[string]any{"kind": "PodStatus", "status": st}); err != nil {
			fmt.Fprintln(os.Stderr, errors.Unwrap(err))
		}
	}
}
