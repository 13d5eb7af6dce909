package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/podlife/podlife/examples/node/internal/volumes"
	"github.com/podlife/podlife/podlife/kube"
)

// objectSource reads the ConfigMaps and Secrets pods refer to from the API server, one GET per
// object the pod names, as the kubelet's Get-strategy secret and ConfigMap managers do. The
// node never lists or watches them cluster-wide, so that a node identity (system:node:NAME,
// group system:nodes) is enough: the Node authorizer lets a node read exactly the objects its
// own pods refer to.
type objectSource struct {
	client typedcorev1.CoreV1Interface
	// forbiddenWait bounds the retries of a GET the API server refuses: its Node authorizer
	// learns that a pod is bound to this node from its own watch, which may lag the node's.
	forbiddenWait time.Duration
}

// objects returns the ConfigMaps and Secrets pod refers to (volumes, projected sources, env
// valueFrom and envFrom of every container, imagePullSecrets) that exist in its namespace. A
// missing one is left out: kube.Convert reports it at the field that names it (or skips it when
// the reference is optional), as the kubelet does.
func (s objectSource) objects(ctx context.Context, pod *corev1.Pod) (kube.Objects, error) {
	cms, secrets := references(pod)
	objs := kube.Objects{ConfigMaps: map[string]*corev1.ConfigMap{}, Secrets: map[string]*corev1.Secret{}}
	for name := range cms {
		cm, err := volumes.GetObject(ctx, s.forbiddenWait, func(ctx context.Context) (*corev1.ConfigMap, error) {
			return s.client.ConfigMaps(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return kube.Objects{}, fmt.Errorf("configmap %s/%s: %w", pod.Namespace, name, err)
		}
		objs.ConfigMaps[name] = cm
	}
	for name := range secrets {
		sec, err := volumes.GetObject(ctx, s.forbiddenWait, func(ctx context.Context) (*corev1.Secret, error) {
			return s.client.Secrets(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return kube.Objects{}, fmt.Errorf("secret %s/%s: %w", pod.Namespace, name, err)
		}
		objs.Secrets[name] = sec
	}
	return objs, nil
}

// references returns the names of the ConfigMaps and Secrets pod refers to.
func references(pod *corev1.Pod) (configMaps, secrets map[string]bool) {
	configMaps, secrets = map[string]bool{}, map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		if v.ConfigMap != nil {
			configMaps[v.ConfigMap.Name] = true
		}
		if v.Secret != nil {
			secrets[v.Secret.SecretName] = true
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.ConfigMap != nil {
					configMaps[src.ConfigMap.Name] = true
				}
				if src.Secret != nil {
					secrets[src.Secret.Name] = true
				}
			}
		}
	}
	envRefs := func(env []corev1.EnvVar, envFrom []corev1.EnvFromSource) {
		for _, e := range env {
			if e.ValueFrom == nil {
				continue
			}
			if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
				configMaps[r.Name] = true
			}
			if r := e.ValueFrom.SecretKeyRef; r != nil {
				secrets[r.Name] = true
			}
		}
		for _, ef := range envFrom {
			if ef.ConfigMapRef != nil {
				configMaps[ef.ConfigMapRef.Name] = true
			}
			if ef.SecretRef != nil {
				secrets[ef.SecretRef.Name] = true
			}
		}
	}
	for _, c := range pod.Spec.InitContainers {
		envRefs(c.Env, c.EnvFrom)
	}
	for _, c := range pod.Spec.Containers {
		envRefs(c.Env, c.EnvFrom)
	}
	for _, r := range pod.Spec.ImagePullSecrets {
		secrets[r.Name] = true
	}
	return configMaps, secrets
}
