package kube

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/kube/internal/fields"
)

// The kinds of documents Load reads.
const (
	kindPod            = "Pod"
	kindConfigMap      = "ConfigMap"
	kindSecret         = "Secret"
	kindDeployment     = fields.Deployment
	kindStatefulSet    = fields.StatefulSet
	kindDaemonSet      = fields.DaemonSet
	kindReplicaSet     = fields.ReplicaSet
	kindJob            = fields.Job
	kindService        = "Service"
	kindServiceAccount = "ServiceAccount"
	kindNamespace      = "Namespace"
)

// kindInfo describes a kind Load reads.
type kindInfo struct {
	apiVersion string
	// newObject returns an empty object to decode into; nil for kinds that are skipped with
	// a warning.
	newObject func() runtime.Object
}

// kindInfos returns what Load knows of each kind.
func kindInfos() map[string]kindInfo {
	return map[string]kindInfo{
		kindPod:            {"v1", func() runtime.Object { return &corev1.Pod{} }},
		kindConfigMap:      {"v1", func() runtime.Object { return &corev1.ConfigMap{} }},
		kindSecret:         {"v1", func() runtime.Object { return &corev1.Secret{} }},
		kindDeployment:     {"apps/v1", func() runtime.Object { return &appsv1.Deployment{} }},
		kindStatefulSet:    {"apps/v1", func() runtime.Object { return &appsv1.StatefulSet{} }},
		kindDaemonSet:      {"apps/v1", func() runtime.Object { return &appsv1.DaemonSet{} }},
		kindReplicaSet:     {"apps/v1", func() runtime.Object { return &appsv1.ReplicaSet{} }},
		kindJob:            {"batch/v1", func() runtime.Object { return &batchv1.Job{} }},
		kindService:        {"v1", nil},
		kindServiceAccount: {"v1", nil},
		kindNamespace:      {"v1", nil},
	}
}

// podSource is a pod to convert: a Pod, or the pod template of a workload, with where its
// fields are in the document.
type podSource struct {
	// name and namespace are the pod's; namePath is where the name comes from.
	name, namespace string
	namePath        *field.Path
	// meta is the Pod's or the template's metadata; spec is its spec.
	meta *metaFields
	spec *corev1.PodSpec
	// root is where the Pod (nil) or the template ("spec.template") is in the document.
	root *field.Path
	// template is true for a workload's pod template.
	template bool
	// job is true for a Job's template: its restartPolicy must be OnFailure or Never.
	job bool
	// deadline is a Job's activeDeadlineSeconds, nil if none.
	deadline *int64
	// checked is the object whose fields fields.Check walks (the Pod or the template).
	checked any
}

// metaFields are the metadata a pod conversion uses.
type metaFields struct {
	generateName string
	// uid is the Pod's metadata.uid (an API object's; empty in a manifest or a template).
	uid                 string
	labels, annotations map[string]string
}

// workloadPod returns the pod source of a workload's template and reports the workload's
// own fields: its fields beyond the template, and the pod count.
func workloadPod(obj runtime.Object, is *issues) (*podSource, bool) {
	var (
		tmpl     *corev1.PodTemplateSpec
		kind     string
		replicas *int32
		spec     = field.NewPath("spec")
		src      = &podSource{}
		checked  any
	)
	switch o := obj.(type) {
	case *appsv1.Deployment:
		kind, tmpl, replicas, checked = kindDeployment, &o.Spec.Template, o.Spec.Replicas, o
	case *appsv1.StatefulSet:
		kind, tmpl, replicas, checked = kindStatefulSet, &o.Spec.Template, o.Spec.Replicas, o
	case *appsv1.ReplicaSet:
		kind, tmpl, replicas, checked = kindReplicaSet, &o.Spec.Template, o.Spec.Replicas, o
	case *appsv1.DaemonSet:
		kind, tmpl, checked = kindDaemonSet, &o.Spec.Template, o
	case *batchv1.Job:
		kind, tmpl, checked = kindJob, &o.Spec.Template, o
		src.job, src.deadline = true, o.Spec.ActiveDeadlineSeconds
		for _, c := range []struct {
			name string
			n    *int32
		}{{"parallelism", o.Spec.Parallelism}, {"completions", o.Spec.Completions}} {
			if c.n != nil && *c.n > 1 {
				is.Warnf(spec.Child(c.name), "Not honoured: %d pods asked for: podlife runs one", *c.n)
			}
		}
	default:
		is.Errorf(field.NewPath("kind"), "Internal error: %T is not a workload", obj)
		return nil, false
	}
	if replicas != nil && *replicas != 1 {
		is.Warnf(spec.Child("replicas"), "Not honoured: %d replicas asked for: podlife runs one pod", *replicas)
	}
	// The template is checked by the pod rules; the workload's rules see it as one field.
	fields.Check(fields.Workload(kind), checked, nil, is.List)
	meta := obj.(metav1.Object)
	src.name, src.namespace, src.namePath = meta.GetName(), meta.GetNamespace(), field.NewPath("metadata", "name")
	src.meta = &metaFields{labels: tmpl.Labels, annotations: tmpl.Annotations}
	src.spec = &tmpl.Spec
	src.root = spec.Child("template")
	src.template = true
	src.checked = tmpl
	if src.name == "" {
		is.Field(field.Required(src.namePath, "the pod takes the workload's name"))
		return src, false
	}
	return src, true
}

// podFromPod returns the pod source of a Pod.
func podFromPod(pod *corev1.Pod) *podSource {
	return &podSource{
		name: pod.Name, namespace: pod.Namespace, namePath: field.NewPath("metadata", "name"),
		meta:    &metaFields{generateName: pod.GenerateName, uid: string(pod.UID), labels: pod.Labels, annotations: pod.Annotations},
		spec:    &pod.Spec,
		checked: pod,
	}
}
