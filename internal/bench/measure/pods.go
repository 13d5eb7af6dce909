package measure

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/podlife/podlife/podlife"
)

// HTTPDCmd serves "ok" on port 8080: what the probe pods run.
var HTTPDCmd = []string{"/bin/sh", "-c", "mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www"}

// NotReady counts the pods not ready now.
func NotReady(pods []*podlife.Pod) int {
	n := 0
	for _, p := range pods {
		if r, all := p.Status().ReadyCount(); r != all {
			n++
		}
	}
	return n
}

// RemoveAll removes pods, four at a time.
func RemoveAll(ctx context.Context, pods []*podlife.Pod) error {
	var g errgroup.Group
	g.SetLimit(4)
	for _, p := range pods {
		g.Go(func() error {
			if err := p.Remove(ctx); err != nil {
				return fmt.Errorf("remove %s: %w", p.Name(), err)
			}
			return nil
		})
	}
	return g.Wait()
}
