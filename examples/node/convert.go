package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/podlife/podlife/examples/node/internal/names"
	"github.com/podlife/podlife/examples/node/internal/serviceenv"
	"github.com/podlife/podlife/examples/node/internal/volumes"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/podlife/podsecurity"
)

// convert returns the podlife spec of a Kubernetes pod, and the volumes the node materializes
// for it (internal/volumes).
func (pr *provider) convert(ctx context.Context, pod *corev1.Pod) (podlife.PodSpec, []volumes.NodeVolume, error) {
	return pr.convertFrom(ctx, pr.objects, pod)
}

// convertFrom is convert with the ConfigMaps and Secrets of src.
func (pr *provider) convertFrom(ctx context.Context, src objectSource, pod *corev1.Pod) (podlife.PodSpec, []volumes.NodeVolume, error) {
	return pr.convertWith(ctx, src, pod, true)
}

// convertWith is convertFrom, which records the conversion's warnings and errors as events on
// the pod if record.
func (pr *provider) convertWith(ctx context.Context, src objectSource, pod *corev1.Pod, record bool) (podlife.PodSpec, []volumes.NodeVolume, error) {
	objs, err := src.objects(ctx, pod)
	if err != nil {
		return podlife.PodSpec{}, nil, err
	}
	return pr.convertObjects(pod, objs, record)
}

// convertObjects is convertWith with the ConfigMaps and Secrets objs.
func (pr *provider) convertObjects(pod *corev1.Pod, objs kube.Objects, record bool) (podlife.PodSpec, []volumes.NodeVolume, error) {
	env := pr.services.Get(pod, pr.podName(pod), pr.loadSaved, pr.log) // internal/serviceenv
	pod = withoutEphemeral(serviceenv.Without(pod))
	orig := pod
	var vols []volumes.NodeVolume
	if pr.tokens != nil {
		pod, vols = volumes.SplitNodeVolumes(pod)
	}
	opts := pr.opts
	opts.Namespace = pod.Namespace
	// The podlife name is a DNS label mapped from namespace/name; Convert keeps the Kubernetes
	// name for the hostname (cut to 63 characters, as the kubelet) and the downward API.
	opts.PodName = func(string, string) string { return pr.podName(orig) }
	opts.ServiceEnv = env
	spec, warnings, err := kube.Convert(pod, objs, opts)
	for _, w := range warnings {
		if record && !handledByCluster(w.Path) {
			pr.recorder.Eventf(pod, corev1.EventTypeWarning, reasonUnsupportedField, "%s: %s", w.Path, w.Message)
		}
	}
	if err != nil {
		var le *kube.LoadError
		if errors.As(err, &le) {
			msgs := make([]string, 0, len(le.Issues))
			for _, is := range le.Issues {
				if record {
					pr.recorder.Eventf(pod, corev1.EventTypeWarning, reasonProviderFailed, "%s: %s", is.Path, is.Message)
				}
				msgs = append(msgs, is.Path+": "+is.Message)
			}
			return podlife.PodSpec{}, nil, errdefs.AsInvalidInput(&refusal{msg: "podlife cannot run this pod: " + strings.Join(msgs, "; "), err: le})
		}
		return podlife.PodSpec{}, nil, errdefs.AsInvalidInput(fmt.Errorf("podlife cannot run this pod: %w", err))
	}
	spec.Labels = maps.Clone(spec.Labels)
	if spec.Labels == nil {
		spec.Labels = map[string]string{}
	}
	spec.Labels[names.LabelNamespace] = pod.Namespace
	if len(validation.IsValidLabelValue(pod.Name)) == 0 {
		spec.Labels[names.LabelName] = pod.Name
	}
	spec.Labels[names.LabelUID] = string(pod.UID)
	// The Pod Security level is checked here, before the node volumes become host directories
	// (which baseline forbids): the pod is judged as the kubelet's admission judges it, with
	// its configMap, secret, downwardAPI and projected volumes (main.go runs the Runtime at
	// privileged).
	if err := checkPodSecurity(pr.podSecurity, &spec); err != nil {
		return podlife.PodSpec{}, nil, errdefs.AsInvalidInput(fmt.Errorf("podlife cannot run this pod: %w", err))
	}
	if len(vols) > 0 {
		volumes.TakeNodeVolumes(&spec, vols, pr.tokens.PodDir(spec.Name))
	}
	return spec, vols, nil
}

// refusal is a conversion's error as the pod's status shows it (every issue's path and
// message), wrapping kube.Convert's *kube.LoadError.
type refusal struct {
	msg string
	err error
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.err }

// checkPodSecurity is podsecurity.Check, with nothing checked at an unset level.
func checkPodSecurity(level podsecurity.Level, spec *podlife.PodSpec) error {
	if level == "" {
		return nil
	}
	return podsecurity.Check(level, spec)
}
