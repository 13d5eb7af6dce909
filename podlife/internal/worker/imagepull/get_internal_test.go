package imagepull

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// store is an image store whose pulls fail with the errors in fails, one per pull, then succeed.
type store struct {
	mu    sync.Mutex
	local bool
	fails []error
	pulls int
}

func (s *store) LocalImage(context.Context, string) (tasks.Image, bool, error) {
	return tasks.Image{Name: "local"}, s.local, nil
}

func (s *store) PullImage(_ context.Context, ref string, _ []api.RegistryCredential) (tasks.Image, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pulls++
	if len(s.fails) > 0 {
		err := s.fails[0]
		s.fails = s.fails[1:]
		return tasks.Image{}, err
	}
	return tasks.Image{Name: ref, Size: 5}, nil
}

// record keeps what Get reports, in order.
type record struct {
	mu     sync.Mutex
	lines  []string
	events int
}

func (r *record) request(image, volume string) Request {
	return Request{Image: image, PullPolicy: api.PullIfNotPresent, Volume: volume,
		SetWaiting: func(reason api.Reason, msg string) { r.add("waiting " + string(reason) + ": " + msg) },
		Emit: func(typ api.EventType, reason api.Reason, msg string) {
			if strings.HasPrefix(msg, "Successfully pulled") {
				msg = msg[:strings.Index(msg, " in ")] // the time varies
			}
			r.add(string(typ) + " " + string(reason) + ": " + msg)
		}}
}

func (r *record) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, s)
}

// A failed pull puts who waits for the image in ErrImagePull, then ImagePullBackOff, with the
// kubelet's events; the pull is tried again once the back-off has passed. A container's words
// name the image, an image volume's name the volume too, and the volume's users get their
// state back after the success.
func TestGetBackoff(t *testing.T) {
	const img = "busybox:1.36"
	for _, tc := range []struct {
		volume string
		want   []string
	}{
		{"", []string{
			`Normal Pulling: Pulling image "busybox:1.36"`,
			`Warning Failed: Failed to pull image "busybox:1.36": boom`,
			`waiting ErrImagePull: boom`,
			`Warning Failed: Error: ErrImagePull`,
			`waiting ImagePullBackOff: Back-off pulling image "busybox:1.36": ErrImagePull: boom`,
			`Normal BackOff: Back-off pulling image "busybox:1.36"`,
			`Warning Failed: Error: ImagePullBackOff`,
			`Normal Pulling: Pulling image "busybox:1.36"`,
			`Normal Pulled: Successfully pulled image "busybox:1.36"`,
		}},
		{"data", []string{
			`Normal Pulling: Pulling image "busybox:1.36"`,
			`Warning Failed: Failed to pull image "busybox:1.36": boom`,
			`waiting ErrImagePull: volume "data": boom`,
			`Warning Failed: Error: ErrImagePull: volume "data": boom`,
			`waiting ImagePullBackOff: Back-off pulling image "busybox:1.36" (volume "data"): ErrImagePull: boom`,
			`Normal BackOff: Back-off pulling image "busybox:1.36"`,
			`Warning Failed: Error: ImagePullBackOff: volume "data"`,
			`Normal Pulling: Pulling image "busybox:1.36"`,
			`Normal Pulled: Successfully pulled image "busybox:1.36"`,
			`waiting : `,
		}},
	} {
		t.Run("volume="+tc.volume, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			clk := clock.NewFake(time.Unix(0, 0))
			st := &store{fails: []error{errors.New("boom")}}
			var rec record
			type result struct {
				img tasks.Image
				err error
			}
			done := make(chan result, 1)
			go func() {
				img, err := Get(ctx, st, clk, &Backoff{Initial: 10 * time.Second, Max: time.Minute}, rec.request(img, tc.volume))
				done <- result{img, err}
			}()
			if err := clk.BlockUntil(ctx, 1); err != nil {
				t.Fatal(err)
			}
			clk.Advance(10 * time.Second)
			res := <-done
			if res.err != nil || res.img.Name != "docker.io/library/busybox:1.36" {
				t.Fatalf("got %+v, %v; want the pulled image", res.img, res.err)
			}
			if !reflect.DeepEqual(rec.lines, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(rec.lines, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// Without a back-off a failed pull fails at once; an invalid reference is never tried again;
// a stop during the back-off returns the pull's error; an image present is not pulled.
func TestGetEnds(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(time.Unix(0, 0))
	bo := &Backoff{Initial: time.Second, Max: time.Second}
	boom := errors.New("boom")

	var rec record
	st := &store{fails: []error{boom}}
	if _, err := Get(ctx, st, clk, nil, rec.request("busybox", "")); !errors.Is(err, boom) || st.pulls != 1 {
		t.Errorf("no back-off: %v after %d pulls, want boom after 1", err, st.pulls)
	}

	st = &store{}
	if _, err := Get(ctx, st, clk, bo, rec.request("Not A Ref", "")); !errors.Is(err, ErrInvalidRef) || st.pulls != 0 {
		t.Errorf("invalid reference: %v after %d pulls, want ErrInvalidRef after none", err, st.pulls)
	}

	st = &store{local: true}
	rec = record{}
	img, err := Get(ctx, st, clk, bo, rec.request("busybox", ""))
	if err != nil || img.Name != "local" || st.pulls != 0 {
		t.Errorf("present: %+v, %v after %d pulls, want the local image", img, err, st.pulls)
	}
	if want := []string{`Normal Pulled: Container image "busybox" already present on machine`}; !reflect.DeepEqual(rec.lines, want) {
		t.Errorf("present: events %q, want %q", rec.lines, want)
	}

	st = &store{}
	rec = record{}
	never := rec.request("busybox", "")
	never.PullPolicy = api.PullNever
	if _, err := Get(ctx, st, clk, nil, never); !errors.Is(err, api.ErrImageNeverPull) || st.pulls != 0 {
		t.Errorf("Never: %v after %d pulls, want ErrImageNeverPull after none", err, st.pulls)
	}

	cctx, cancel := context.WithCancel(ctx)
	st = &store{fails: []error{boom, boom}}
	done := make(chan error, 1)
	go func() {
		_, err := Get(cctx, st, clk, bo, rec.request("busybox", ""))
		done <- err
	}()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, boom) || st.pulls != 1 {
		t.Errorf("stopped in the back-off: %v after %d pulls, want boom after 1", err, st.pulls)
	}
}
