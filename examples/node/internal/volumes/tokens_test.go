package volumes

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/podlife/podlife/podlife"
)

// TestProjectorRefreshes: the Projector asks for a token bound to the pod with the source's
// audience and expiry, writes it with the volume's other files, rewrites the volume with a new
// token once it is due (here: past maxAge), and remove ends the refreshes and removes the
// pod's directory.
func TestProjectorRefreshes(t *testing.T) {
	client := fake.NewClientset()
	var mu sync.Mutex
	var reqs []*authenticationv1.TokenRequest
	client.PrependReactor("create", "serviceaccounts", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "token" {
			return false, nil, nil
		}
		tr := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenRequest).DeepCopy()
		mu.Lock()
		reqs = append(reqs, tr)
		tr.Status.Token = fmt.Sprintf("token-%d", len(reqs))
		mu.Unlock()
		tr.Status.ExpirationTimestamp = metav1.NewTime(time.Now().Add(time.Duration(*tr.Spec.ExpirationSeconds) * time.Second))
		return true, tr, nil
	})
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(reqs) }
	dir := t.TempDir()
	pj := NewProjector(client.CoreV1(), dir, 300*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "uid-1"},
		Spec: corev1.PodSpec{ServiceAccountName: "builder"}}
	vols := []NodeVolume{{name: "kube-api-access",
		tokens: []tokenSource{{path: "token", audience: "vault", expirationSeconds: 3600, mode: 0o644}},
		files:  []podlife.File{{Path: "namespace", Data: []byte("ns")}}}}
	if err := pj.Project(context.Background(), "p1", pod, vols, nil); err != nil {
		t.Fatal(err)
	}
	vol := filepath.Join(dir, "p1", "kube-api-access")
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(vol, name))
		return string(b)
	}
	if got := read("token"); got != "token-1" || read("namespace") != "ns" {
		t.Fatalf("volume: token %q, namespace %q", got, read("namespace"))
	}
	mu.Lock()
	r := reqs[0]
	mu.Unlock()
	if ref := r.Spec.BoundObjectRef; ref == nil || ref.Kind != "Pod" || ref.Name != "web" || ref.UID != "uid-1" ||
		len(r.Spec.Audiences) != 1 || r.Spec.Audiences[0] != "vault" || *r.Spec.ExpirationSeconds != 3600 {
		t.Errorf("token request %+v", r.Spec)
	}
	deadline := time.Now().Add(30 * time.Second)
	for read("token") == "token-1" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := read("token"); got == "token-1" || got == "" || read("namespace") != "ns" {
		t.Errorf("after maxAge: token %q, namespace %q; want a new token beside the same files", got, read("namespace"))
	}
	if err := pj.Remove("p1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "p1")); !os.IsNotExist(err) {
		t.Errorf("pod directory after remove: %v", err)
	}
	n := count()
	time.Sleep(time.Second) // no refresh may follow remove: a bounded look for one
	if count() != n {
		t.Errorf("%d token requests after remove", count()-n)
	}
}
