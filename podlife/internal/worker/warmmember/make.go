package warmmember

import "context"

// Make is a member's start sequence up to the processes (the worker's Prewarm): the lease,
// the sandbox, its image volumes and cgroup, then the network attach meanwhile the pause (if
// any) starts and every container is prepared (image, containerd container, task). It
// returns once the attach and every preparation are over; ctx is the member's start context.
func (m *Member) Make(ctx context.Context, w Pod) error {
	sb := m.env.Sandbox
	err := sb.CreateLease(ctx, m.env.Spec.Name, m.env.StateDir)
	if err == nil {
		err = w.CreateSandbox(sb.Leased(ctx))
	}
	if err == nil {
		err = sb.CreateCgroup(m.env.Spec.Resources)
	}
	if err != nil {
		w.NoNetwork()
		return err
	}
	w.AttachNetwork(ctx)
	if m.env.Pause {
		if err := w.StartPause(ctx); err != nil {
			_ = w.NetworkErr() // awaited: the member is then removed whole
			return err
		}
	}
	prepErr := w.Prepare(sb.Leased(ctx))
	if err := w.NetworkErr(); err != nil {
		return err
	}
	return prepErr
}
