package kube_test

import (
	"reflect"
	"testing"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// TestSecurityContext: the pod's and the containers' securityContext fields map onto
// podlife's, in strict mode (nothing is dropped).
func TestSecurityContext(t *testing.T) {
	m := pod("  securityContext: {runAsUser: 1000, runAsGroup: 1001, runAsNonRoot: true, supplementalGroups: [5, 6], fsGroup: 2000,\n"+
		"    supplementalGroupsPolicy: Merge, fsGroupChangePolicy: OnRootMismatch,\n"+
		"    sysctls: [{name: net.ipv4.ip_local_port_range, value: '20000 30000'}], seccompProfile: {type: Localhost, localhostProfile: p.json}}\n",
		"    securityContext: {runAsUser: 7, runAsGroup: 8, runAsNonRoot: false, readOnlyRootFilesystem: true, privileged: false,\n"+
			"      allowPrivilegeEscalation: false, capabilities: {add: [NET_ADMIN], drop: [ALL]}, procMount: Default, seccompProfile: {type: Unconfined}}\n")
	res, err := loadString(kube.Options{Strict: true}, m)
	if err != nil {
		t.Fatal(err)
	}
	spec := onePod(t, res)
	i64 := func(v int64) *int64 { return &v }
	b := func(v bool) *bool { return &v }
	wantPod := &podlife.PodSecurityContext{RunAsUser: i64(1000), RunAsGroup: i64(1001), RunAsNonRoot: b(true),
		SupplementalGroups: []int64{5, 6}, FSGroup: i64(2000),
		Sysctls:        []podlife.Sysctl{{Name: "net.ipv4.ip_local_port_range", Value: "20000 30000"}},
		SeccompProfile: &podlife.SeccompProfile{Type: podlife.SeccompLocalhost, LocalhostProfile: "p.json"}}
	if !reflect.DeepEqual(spec.SecurityContext, wantPod) {
		t.Errorf("pod securityContext %+v, want %+v", spec.SecurityContext, wantPod)
	}
	wantCtr := &podlife.SecurityContext{RunAsUser: i64(7), RunAsGroup: i64(8), RunAsNonRoot: b(false), ReadOnlyRootFilesystem: true,
		AllowPrivilegeEscalation: b(false), Capabilities: &podlife.Capabilities{Add: []string{"NET_ADMIN"}, Drop: []string{"ALL"}},
		ProcMount: podlife.ProcMountDefault, SeccompProfile: &podlife.SeccompProfile{Type: podlife.SeccompUnconfined}}
	if got := spec.Containers[0].SecurityContext; !reflect.DeepEqual(got, wantCtr) {
		t.Errorf("container securityContext %+v, want %+v", got, wantCtr)
	}
}
