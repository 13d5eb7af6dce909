package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/podlife/podlife/podlife"
)

// followLogs prints every container's output as "pod/container | line" until ctx is done, then
// drains what was written. It follows the CRI log file of each attempt, moving to the next
// attempt's file after a restart. (Log files are written by the managing process; a follower in
// the same process polls them like tail -F.)
func followLogs(ctx context.Context, pods []*podlife.Pod, print func(string)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for _, p := range pods {
		for _, name := range containerNames(p) {
			c, err := p.Container(name)
			if err != nil {
				continue
			}
			prefix := p.Name() + "/" + name + " | "
			wg.Go(func() { followContainer(ctx, c, func(s string) { print(prefix + s) }) })
		}
	}
	return &wg
}

func containerNames(p *podlife.Pod) []string {
	spec := p.Spec()
	var names []string
	for _, cs := range [][]podlife.ContainerSpec{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			names = append(names, c.Name)
		}
	}
	return names
}

func followContainer(ctx context.Context, c *podlife.Container, print func(string)) {
	var path string
	var f *os.File
	var pending []byte // the start of a line still being written
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		done := ctx.Err() != nil
		if cur := c.LogPath(); cur != "" && cur != path {
			if f != nil {
				pending = drain(f, pending, print)
				f.Close()
			}
			var err error
			if f, err = os.Open(cur); err != nil {
				f = nil
			} else {
				path, pending = cur, nil
			}
		}
		if f != nil {
			pending = drain(f, pending, print)
		}
		if done {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
}

// drain prints the complete lines written since the last call and returns what is left of an
// incomplete one.
func drain(f *os.File, pending []byte, print func(string)) []byte {
	b, _ := io.ReadAll(f)
	pending = append(pending, b...)
	for {
		i := bytes.IndexByte(pending, '\n')
		if i < 0 {
			return pending
		}
		if l, ok := podlife.ParseLogLine(pending[:i]); ok {
			print(l.Text)
		}
		pending = pending[i+1:]
	}
}
