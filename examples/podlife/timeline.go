package main

import (
	"fmt"
	"html"
	"os"
	"strings"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// writeTimeline draws the pod's start sequence from its events, the picture the seed article
// draws by hand: one row per container, from Created to Started to PostStartHookCompleted,
// and its exit if it has one.
func writeTimeline(path string, pod *podlife.Pod) error {
	t0 := pod.Status().StartTime
	type span struct{ created, started, hookDone, exited time.Duration }
	rows := map[string]*span{}
	var order []string
	var end time.Duration
	for _, e := range pod.Events() {
		if e.Container == "" {
			continue
		}
		s, ok := rows[e.Container]
		if !ok {
			s = &span{created: -1, started: -1, hookDone: -1, exited: -1}
			rows[e.Container] = s
			order = append(order, e.Container)
		}
		at := e.Time.Sub(t0)
		switch e.Reason {
		case reasons.Created:
			if s.created < 0 {
				s.created = at
			}
		case reasons.Started:
			if s.started < 0 {
				s.started = at
			}
		case reasons.PostStartCompleted:
			s.hookDone = at
		case reasons.Exited:
			s.exited = at
		default:
			continue
		}
		end = max(end, at)
	}
	const left, width, rowH = 170, 640, 34
	scale := func(d time.Duration) float64 { return left + float64(width)*d.Seconds()/max(end.Seconds(), 0.001) }
	var b strings.Builder
	h := 40 + rowH*len(order) + 30
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", left+width+40, h)
	fmt.Fprintf(&b, `<text x="10" y="20" font-weight="bold">%s: start sequence (0 - %.2fs)</text>`+"\n", html.EscapeString(pod.Name()), end.Seconds())
	for i, name := range order {
		s := rows[name]
		y := 40 + i*rowH
		fmt.Fprintf(&b, `<text x="10" y="%d">%s</text>`+"\n", y+16, html.EscapeString(name))
		bar := func(from, to time.Duration, color, label string) {
			if from < 0 || to < from {
				return
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="20" fill="%s"><title>%s %.3fs-%.3fs</title></rect>`+"\n",
				scale(from), y+2, max(scale(to)-scale(from), 1), color, label, from.Seconds(), to.Seconds())
		}
		stop := end
		if s.exited >= 0 {
			stop = s.exited
		}
		bar(s.created, s.started, "#bbbbbb", "created, waiting to start")
		if s.hookDone >= 0 {
			bar(s.started, s.hookDone, "#e8a33d", "running, postStart hook")
			bar(s.hookDone, stop, "#4c9f50", "running")
		} else {
			bar(s.started, stop, "#4c9f50", "running")
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555">grey: created, waiting for its turn · orange: postStart hook · green: running</text>`+"\n", left, h-10)
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
