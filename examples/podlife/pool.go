package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/podlife/podlife/podlife"
)

// printPoolMembers lists, after ps's pods, the warm pool members of the state dir
// (podlife.Runtime.Prewarm): sandboxes with their containers created, not pods yet.
func printPoolMembers(ctx context.Context, rt *podlife.Runtime, stdout io.Writer) {
	members, err := rt.ListPoolMembers(ctx)
	if err != nil || len(members) == 0 {
		return
	}
	fmt.Fprintf(stdout, "\n%-24s %-26s %-8s %-8s %s\n", "POOL MEMBER", "KEY", "STATE", "AGE", "MANAGER")
	for _, m := range members {
		state, manager := "ready", fmt.Sprint(m.OwnerPID)
		if !m.Ready {
			state = "making"
		}
		if !m.Live {
			manager = "none"
		}
		fmt.Fprintf(stdout, "%-24s %-26s %-8s %-8s %s\n", m.ID, m.Key, state, time.Since(m.Created).Truncate(time.Second), manager)
	}
}
