package volumes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/podlife/podlife/podlife"
)

// Service-account tokens as the kubelet's token manager serves them: requested with the
// TokenRequest API through the node's own credentials (the Node authorizer lets a node create
// tokens for the service accounts of the pods bound to it, NodeRestriction only tokens bound to
// such a pod), bound to the pod (boundObjectRef: the token dies with it), with the source's
// audience and expirationSeconds; and refreshed when 80% of its life has passed or it is older
// than 24 h, the volume rewritten atomically so that a container never reads half a token.

// DefaultTokenMaxAge is the kubelet's: a token older than this is refreshed, whatever its
// expiry (the API server may extend the default token's life to a year).
const DefaultTokenMaxAge = 24 * time.Hour

// tokenRetryDelay is the wait before asking again for a token the API server refused.
const tokenRetryDelay = 10 * time.Second

// issuedToken is a token written into a volume.
type issuedToken struct {
	token     string
	refreshAt time.Time
}

// Projector materializes the node volumes of the pods (projected.go) under dir, one directory
// per podlife pod, and keeps their tokens fresh, one goroutine per pod.
type Projector struct {
	client        typedcorev1.CoreV1Interface
	dir           string
	maxAge        time.Duration
	syncPeriod    time.Duration // how often the volumes' files are resolved again (volumesync.go)
	forbiddenWait time.Duration // as objectSource's: the Node authorizer's graph may lag
	log           *slog.Logger

	mu   sync.Mutex
	pods map[string]*projection // by podlife name
}

// projection is a pod's node volumes and the goroutine that refreshes them.
type projection struct {
	pod     *corev1.Pod
	gid     int // the pod's fsGroup, -1 for none
	uid     int // the user all the pod's containers run as, -1 if they differ or one is unset
	dir     string
	volumes []NodeVolume
	written [][]podlife.File // the files of each volume last written, tokens aside
	// resolve returns the volumes' files as they are now (volumesync.go); nil for none.
	resolve func(context.Context) ([]NodeVolume, error)
	kick    chan struct{} // a resync asked for: the pod's metadata changed
	cancel  context.CancelFunc
	done    chan struct{}
}

// NewProjector returns a Projector of the node volumes under dir, requesting tokens through
// client and refreshing those older than maxAge (DefaultTokenMaxAge for the kubelet's).
func NewProjector(client typedcorev1.CoreV1Interface, dir string, maxAge time.Duration, log *slog.Logger) *Projector {
	return &Projector{client: client, dir: dir, maxAge: maxAge, syncPeriod: defaultVolumeSyncPeriod, forbiddenWait: 10 * time.Second, log: log,
		pods: map[string]*projection{}}
}

// PodDir is the directory of the podlife pod name's node volumes.
func (pj *Projector) PodDir(name string) string { return filepath.Join(pj.dir, name) }

// Project writes the node volumes of pod (podlife name name) with fresh tokens, and refreshes
// them until Remove or Close: tokens when due, files when resolve (nil for never) returns
// others. A projection of the same pod already running is replaced.
func (pj *Projector) Project(ctx context.Context, name string, pod *corev1.Pod, vols []NodeVolume, resolve func(context.Context) ([]NodeVolume, error)) error {
	pj.stop(name)
	pp := &projection{pod: pod.DeepCopy(), gid: -1, uid: fsUser(pod), dir: pj.PodDir(name), volumes: slices.Clone(vols),
		written: make([][]podlife.File, len(vols)), resolve: resolve, kick: make(chan struct{}, 1)}
	if sc := pod.Spec.SecurityContext; sc != nil && sc.FSGroup != nil {
		pp.gid = int(*sc.FSGroup)
	}
	if err := pj.refresh(ctx, pp, true); err != nil {
		return err
	}
	life, cancel := context.WithCancel(context.Background())
	pp.cancel, pp.done = cancel, make(chan struct{})
	pj.mu.Lock()
	pj.pods[name] = pp
	pj.mu.Unlock()
	go func() {
		defer close(pp.done)
		pj.keepFresh(life, pp)
	}()
	return nil
}

// stop ends the refresh of the pod's volumes, if any, and waits for it; the files stay.
func (pj *Projector) stop(name string) {
	pj.mu.Lock()
	pp := pj.pods[name]
	delete(pj.pods, name)
	pj.mu.Unlock()
	if pp != nil {
		pp.cancel()
		<-pp.done
	}
}

// Remove ends the refresh of the pod's volumes and removes them from the host.
func (pj *Projector) Remove(name string) error {
	pj.stop(name)
	if err := os.RemoveAll(pj.PodDir(name)); err != nil {
		return fmt.Errorf("node volumes of %s: %w", name, err)
	}
	return nil
}

// Close ends every refresh and waits for them; the volumes stay for the pods, which outlive
// the node's process (its next process refreshes them again when it adopts the pods).
func (pj *Projector) Close() {
	pj.mu.Lock()
	names := make([]string, 0, len(pj.pods))
	for n := range pj.pods {
		names = append(names, n)
	}
	pj.mu.Unlock()
	for _, n := range names {
		pj.stop(n)
	}
}

// keepFresh refreshes pp's tokens when they are due, and its files every syncPeriod or when
// kicked, until ctx ends.
func (pj *Projector) keepFresh(ctx context.Context, pp *projection) {
	k := pp.pod.Namespace + "/" + pp.pod.Name
	for {
		next := pp.next()
		if pp.resolve != nil && (next.IsZero() || time.Until(next) > pj.syncPeriod) {
			next = time.Now().Add(pj.syncPeriod)
		}
		if next.IsZero() { // no token, no files to follow: nothing to refresh
			return
		}
		timer := time.NewTimer(time.Until(next))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-pp.kick:
			timer.Stop()
		case <-timer.C:
		}
		if pp.resolve != nil {
			pj.resync(ctx, pp)
		}
		if err := pj.refresh(ctx, pp, false); err != nil && ctx.Err() == nil {
			pj.log.Warn("refresh node volume", "pod", k, "err", err)
		}
	}
}

// next is when the first of pp's tokens is due.
func (pp *projection) next() time.Time {
	var t time.Time
	for _, v := range pp.volumes {
		for _, s := range v.tokens {
			if t.IsZero() || s.issued.refreshAt.Before(t) {
				t = s.issued.refreshAt
			}
		}
	}
	return t
}

// refresh requests the tokens that are due (all of them if all) and rewrites the volumes that
// got one or whose files changed since last written (all of them if all). A token refused is asked again after tokenRetryDelay, the old one left in place;
// with all, a refusal is the error and nothing is written.
func (pj *Projector) refresh(ctx context.Context, pp *projection, all bool) error {
	var errs []error
	for i := range pp.volumes {
		v := &pp.volumes[i]
		renewed := false
		for j := range v.tokens {
			s := &v.tokens[j]
			now := time.Now()
			if !all && now.Before(s.issued.refreshAt) {
				continue
			}
			issued, err := pj.request(ctx, pp.pod, s)
			if err != nil {
				s.issued.refreshAt = now.Add(tokenRetryDelay)
				errs = append(errs, fmt.Errorf("volume %s: %w", v.name, err))
				continue
			}
			s.issued, renewed = issued, true
		}
		if all && len(errs) > 0 || !all && !renewed && slices.EqualFunc(v.files, pp.written[i], sameFile) {
			continue
		}
		files := make([]payloadFile, 0, len(v.files)+len(v.tokens))
		for _, f := range v.files {
			files = append(files, payloadFile{File: f, uid: -1})
		}
		for _, s := range v.tokens {
			// The kubelet's: a token is its user's alone (0600, then group-readable with an
			// fsGroup) when the pod names a user or an fsGroup, else it has the volume's mode.
			mode := s.mode
			if pp.uid >= 0 || pp.gid >= 0 {
				mode = 0o600
			}
			files = append(files, payloadFile{File: podlife.File{Path: s.path, Data: []byte(s.issued.token), Mode: mode}, uid: pp.uid})
		}
		if err := writeAtomic(filepath.Join(pp.dir, v.name), files, pp.gid); err != nil {
			errs = append(errs, fmt.Errorf("volume %s: write: %w", v.name, err))
			continue
		}
		pp.written[i] = v.files
		pj.log.Debug("node volume written", "pod", pp.pod.Namespace+"/"+pp.pod.Name, "volume", v.name, "next", pp.next())
	}
	return errors.Join(errs...)
}

// request asks the API server for a token of pod's service account, bound to the pod, and
// returns it with its refresh time: the kubelet's, when 80% of its life has passed or at
// maxAge, whichever comes first.
func (pj *Projector) request(ctx context.Context, pod *corev1.Pod, s *tokenSource) (issuedToken, error) {
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	exp := s.expirationSeconds
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: &exp,
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}
	if s.audience != "" {
		req.Spec.Audiences = []string{s.audience}
	}
	tr, err := GetObject(ctx, pj.forbiddenWait, func(ctx context.Context) (*authenticationv1.TokenRequest, error) {
		return pj.client.ServiceAccounts(pod.Namespace).CreateToken(ctx, sa, req, metav1.CreateOptions{})
	})
	if err != nil {
		return issuedToken{}, fmt.Errorf("token of serviceaccount %s/%s: %w", pod.Namespace, sa, err)
	}
	ttl := time.Duration(exp) * time.Second
	if tr.Spec.ExpirationSeconds != nil {
		ttl = time.Duration(*tr.Spec.ExpirationSeconds) * time.Second
	}
	expiry := tr.Status.ExpirationTimestamp.Time
	issuedAt := expiry.Add(-ttl)
	refreshAt := expiry.Add(-ttl / 5)
	if t := issuedAt.Add(pj.maxAge); t.Before(refreshAt) {
		refreshAt = t
	}
	return issuedToken{token: tr.Status.Token, refreshAt: refreshAt}, nil
}

// fsUser is the kubelet's owner of a pod's tokens: the runAsUser every container of the pod
// runs with (its own, else the pod's), or -1 when one has none or they differ.
func fsUser(pod *corev1.Pod) int {
	uid := -1
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			var u *int64
			if sc := pod.Spec.SecurityContext; sc != nil {
				u = sc.RunAsUser
			}
			if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
				u = c.SecurityContext.RunAsUser
			}
			if u == nil || uid >= 0 && int(*u) != uid {
				return -1
			}
			uid = int(*u)
		}
	}
	return uid
}
