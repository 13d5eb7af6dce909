package env

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/kube/internal/expand"
	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// Pod is what the environments of a pod's containers, and its downward API, are resolved
// from.
type Pod struct {
	// Name, Namespace and UID are the Kubernetes pod's (UID empty for a manifest's pod).
	Name, Namespace, UID string
	Labels, Annotations  map[string]string
	Spec                 *corev1.PodSpec
	// NodeName is what spec.nodeName gives for a pod that names none; empty means this
	// host's name in lower case (kube.Options.NodeName).
	NodeName string
	// ServiceEnv are the Service variables of every container (kube.Options.ServiceEnv).
	ServiceEnv map[string]string
	// Allocatable is the node allocatable the downward API reports for a limit a container
	// does not set; nil means this host's (kube.Options.Allocatable).
	Allocatable corev1.ResourceList
	// ConfigMap returns the ConfigMap of that name given with the pod, or nil.
	ConfigMap func(name string) *corev1.ConfigMap
	// SecretData returns the data of the Secret of that name given with the pod as strings,
	// or nil if there is none.
	SecretData func(name string) map[string]string
	// MapPath records that podlife's validation path pl stands for the document path p.
	MapPath func(pl string, p *field.Path)
}

// Resolver resolves the environments and downward API fields of one pod, reporting what it
// cannot resolve to its issue list.
type Resolver struct {
	pod Pod
	x   expand.Expander
	is  *report.List
	// alloc is the node allocatable, read when first needed.
	alloc corev1.ResourceList
}

// New returns the resolver of pod; x expands its $(VAR) references and reports to x.Issues.
func New(pod Pod, x expand.Expander) *Resolver {
	return &Resolver{pod: pod, x: x, is: x.Issues}
}
