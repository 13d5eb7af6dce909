package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/podlife/podlife/podlife"
)

// runOrAdopt runs the pod, or, if a pod of that name exists already, takes it over the way
// kubectl apply would: a pod with no live manager (its supervisor was killed) and the same spec
// is adopted, its running containers untouched; a pod with another spec is refused naming what
// differs, or with replace stopped, removed and run anew; a pod with a live manager is refused
// naming it (or with replace removed through it). An adopted pod that had stopped is removed
// and run anew. note prints a line for the user (it must be safe for concurrent use).
func runOrAdopt(ctx context.Context, rt *podlife.Runtime, spec podlife.PodSpec, replace bool, note func(format string, a ...any)) (*podlife.Pod, error) {
	rec, err := rt.LookupPod(ctx, spec.Name)
	if errors.Is(err, podlife.ErrNotFound) {
		return rt.Run(ctx, spec)
	}
	if err != nil {
		return nil, err
	}
	again := func(why string) (*podlife.Pod, error) {
		note("podlife run: pod/%s %s: removing it and running it anew\n", spec.Name, why)
		if err := removePod(ctx, rt, spec.Name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			return nil, fmt.Errorf("replace pod %q: %w", spec.Name, err)
		}
		return rt.Run(ctx, spec)
	}
	pod, err := rt.Adopt(ctx, spec)
	var changed *podlife.SpecChangedError
	var managed *podlife.ManagedError
	switch {
	case errors.As(err, &changed):
		if replace {
			return again("has another spec (" + strings.Join(changed.Fields, ", ") + ")")
		}
		return nil, fmt.Errorf("pod %q exists with another spec: it differs in %s (--replace stops and removes it, then runs this one): %w",
			spec.Name, strings.Join(changed.Fields, ", "), podlife.ErrSpecChanged)
	case errors.As(err, &managed):
		if replace {
			return again(fmt.Sprintf("is managed by pid %d", rec.Manager))
		}
		who := fmt.Sprintf("pid %d", managed.PID)
		if managed.Adopting {
			who = "another podlife process that adopted it"
		}
		return nil, fmt.Errorf("pod %q exists and is managed by %s (podlife stop/rm, or --replace): %w", spec.Name, who, podlife.ErrManaged)
	case err != nil:
		return nil, err
	}
	if st := pod.Status(); st.Stopping {
		if err := pod.Remove(ctx); err != nil {
			return nil, fmt.Errorf("remove the stopped pod %q: %w", spec.Name, err)
		}
		note("podlife run: pod/%s had stopped: removed, running it anew\n", spec.Name)
		return rt.Run(ctx, spec)
	}
	note("podlife run: pod/%s adopted: its previous manager is gone; its running containers go on\n", spec.Name)
	return pod, nil
}

// removePod removes the named pod, whichever process manages it.
func removePod(ctx context.Context, rt *podlife.Runtime, name string) error {
	pod, err := rt.Pod(name)
	if err != nil {
		return err
	}
	return pod.Remove(ctx)
}
