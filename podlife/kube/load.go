package kube

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube/internal/decode"
)

// Result is what Load returns: the pods to run, in document order, and the warnings.
type Result struct {
	Pods []Pod
	// Warnings are the fields dropped or not enforced, each with its document and path.
	Warnings []Issue
}

// Pod is a pod spec and the document it came from.
type Pod struct {
	Spec podlife.PodSpec
	// Source is the Pod, or the workload whose template the pod is.
	Source Document
}

// Load reads Kubernetes manifests, YAML or JSON, each holding one or more documents ("---"
// separated YAML, or a stream of JSON objects), and converts every Pod, and the pod template
// of every Deployment, StatefulSet, DaemonSet, ReplicaSet and Job, to a podlife pod spec.
// ConfigMaps and Secrets in any of the manifests feed the pods' configMap and secret volumes,
// env and envFrom, and imagePullSecrets. Services, ServiceAccounts and Namespaces are skipped
// with a warning; other kinds are errors.
//
// Documents are decoded as the API server does with strict field validation (unknown and
// duplicate fields are errors), the API's defaults are applied, and every field set is
// checked against the table of supported fields (docs/kube-fields.md): what podlife cannot
// honour is an error, or a warning where running without it is safe. Each converted spec
// has passed podlife's validation.
//
// A manifest may have at most MaxManifestSize bytes, also once its YAML aliases are
// expanded, and $(VAR) expansion is bounded (MaxExpandedString, MaxContainerEnvironment,
// MaxExpansionTotal): what exceeds a limit is an error, found before the memory is spent.
//
// The error is a *LoadError listing every error, each with its document and field path; or
// the error of a reader, or ctx's.
func Load(ctx context.Context, opts Options, manifests ...io.Reader) (*Result, error) {
	l := newLoader(opts)
	for i, r := range manifests {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := l.readFrom(r, Document{Manifest: i}); err != nil {
			return nil, fmt.Errorf("kube: manifest %d: %w", i, err)
		}
	}
	return l.finish(ctx)
}

// LoadFiles is Load on the files at paths; issues name the files.
func LoadFiles(ctx context.Context, opts Options, paths ...string) (*Result, error) {
	l := newLoader(opts)
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("kube: %w", err)
		}
		err = l.readFrom(f, Document{Manifest: i, File: p})
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("kube: %s: %w", p, err)
		}
	}
	return l.finish(ctx)
}

// loader holds what Load has read so far.
type loader struct {
	opts   Options
	issues []Issue
	// objects are the ConfigMaps and Secrets read, by namespace.
	objects map[string]*Objects
	pods    []pending
	// shared is what the conversions of the pods share.
	shared *shared
}

func newLoader(opts Options) *loader {
	return &loader{opts: opts, objects: map[string]*Objects{}, shared: newShared()}
}

// readFrom reads one manifest, refusing it if it is longer than MaxManifestSize.
func (l *loader) readFrom(r io.Reader, at Document) error {
	data, tooLong, err := readManifest(r)
	if err != nil {
		return err
	}
	if tooLong {
		l.issues = append(l.issues, manifestTooLong(at))
		return nil
	}
	l.read(data, at)
	return nil
}

// pending is a pod to convert once every ConfigMap and Secret is known.
type pending struct {
	is  *issues
	src *podSource
}

// read decodes the documents of one manifest. Its YAML documents, with their aliases
// expanded, may have MaxManifestSize bytes in all: the first that goes over is refused, and
// ends the manifest.
func (l *loader) read(data []byte, at Document) {
	room := MaxManifestSize
	docs, problem := decode.Split(data, MaxDocuments)
	if problem != "" {
		d := at
		d.Index = len(docs)
		l.issues = append(l.issues, Issue{Document: d, Path: DocumentPath, Message: problem, Severity: Error})
	}
	for _, rd := range docs {
		d := at
		d.Index = rd.Index
		is := newIssues(d)
		if rd.YAML {
			n, ok := decode.ExpandedYAMLSize(rd.Data, room)
			if !ok {
				is.Errorf(nil, "Too long: with its YAML aliases expanded, a manifest may not be more than %d bytes", MaxManifestSize)
				l.issues = append(l.issues, is.all()...)
				return
			}
			room -= n
		}
		if src := l.readDocument(rd, is); src != nil {
			// Its issues are reported with the conversion's.
			l.pods = append(l.pods, pending{is: is, src: src})
			continue
		}
		l.issues = append(l.issues, is.all()...)
	}
}

// readDocument decodes one document and files its object; it returns the pod to convert, if
// the document holds one.
func (l *loader) readDocument(rd decode.Doc, is *issues) *podSource {
	data, h := decode.ToJSON(rd, is.List)
	if data == nil {
		return nil
	}
	is.doc.Kind, is.doc.Name = h.Kind, h.Name
	if is.HasErrors() {
		return nil
	}
	info, ok := kindInfos()[h.Kind]
	switch {
	case h.Kind == "":
		is.Field(field.Required(field.NewPath("kind"), ""))
		return nil
	case !ok:
		is.Errorf(field.NewPath("kind"), "Unsupported value: %q: podlife runs Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet and Job documents, with ConfigMaps and Secrets", h.Kind)
		return nil
	case h.APIVersion == "":
		is.Field(field.Required(field.NewPath("apiVersion"), fmt.Sprintf("%q for a %s", info.apiVersion, h.Kind)))
		return nil
	case h.APIVersion != info.apiVersion:
		is.Field(field.NotSupported(field.NewPath("apiVersion"), h.APIVersion, []string{info.apiVersion}))
		return nil
	case info.newObject == nil:
		is.Warnf(field.NewPath("kind"), "Not honoured: podlife runs no %ss", h.Kind)
		return nil
	}
	obj := info.newObject()
	if !decode.Strict(data, obj, is.List) {
		return nil
	}
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		l.addConfigMap(o, is)
	case *corev1.Secret:
		l.addSecret(o, is)
	case *corev1.Pod:
		return podFromPod(o)
	default:
		if src, ok := workloadPod(obj, is); ok {
			return src
		}
	}
	return nil
}

// objectsIn returns the objects of a namespace.
func (l *loader) objectsIn(ns string) *Objects {
	o := l.objects[ns]
	if o == nil {
		o = &Objects{ConfigMaps: map[string]*corev1.ConfigMap{}, Secrets: map[string]*corev1.Secret{}}
		l.objects[ns] = o
	}
	return o
}

// addConfigMap files a ConfigMap, checking its name and keys as the API does.
func (l *loader) addConfigMap(cm *corev1.ConfigMap, is *issues) {
	checkName(cm.Name, is)
	checkKeys(field.NewPath("data"), cm.Data, is)
	checkKeys(field.NewPath("binaryData"), cm.BinaryData, is)
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		if _, dup := cm.BinaryData[k]; dup {
			is.Field(field.Invalid(field.NewPath("data").Key(k), k, "duplicate of key present in binaryData"))
		}
	}
	if o := l.objectsIn(l.opts.namespace(cm.Namespace)); !l.duplicate(o.ConfigMaps[cm.Name] != nil, is) {
		o.ConfigMaps[cm.Name] = cm
	}
}

// addSecret files a Secret, checking its name and keys as the API does.
func (l *loader) addSecret(s *corev1.Secret, is *issues) {
	checkName(s.Name, is)
	checkKeys(field.NewPath("data"), s.Data, is)
	checkKeys(field.NewPath("stringData"), s.StringData, is)
	if o := l.objectsIn(l.opts.namespace(s.Namespace)); !l.duplicate(o.Secrets[s.Name] != nil, is) {
		o.Secrets[s.Name] = s
	}
}

// checkName checks the name of a ConfigMap or Secret: a DNS subdomain.
func checkName(name string, is *issues) {
	np := field.NewPath("metadata", "name")
	if name == "" {
		is.Field(field.Required(np, ""))
		return
	}
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		is.Field(field.Invalid(np, name, msg))
	}
}

// checkKeys checks the keys of a ConfigMap's or Secret's data.
func checkKeys[V any](p *field.Path, data map[string]V, is *issues) {
	for _, k := range slices.Sorted(maps.Keys(data)) {
		for _, msg := range validation.IsConfigMapKey(k) {
			is.Field(field.Invalid(p.Key(k), k, msg))
		}
	}
}

// duplicate reports an object whose name is taken.
func (l *loader) duplicate(taken bool, is *issues) bool {
	if taken {
		is.Field(field.Duplicate(field.NewPath("metadata", "name"), is.doc.Name))
	}
	return taken
}

// finish converts the pods and returns the result, or a *LoadError.
func (l *loader) finish(ctx context.Context) (*Result, error) {
	res := &Result{}
	names := map[string]bool{}
	for _, p := range l.pods {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		objects := l.objectsIn(l.opts.namespace(p.src.namespace))
		spec := convertPod(p.src, *objects, l.opts, l.shared, p.is)
		if names[spec.Name] && spec.Name != "" {
			p.is.Field(field.Duplicate(p.src.namePath, spec.Name))
		}
		names[spec.Name] = true
		l.issues = append(l.issues, p.is.all()...)
		res.Pods = append(res.Pods, Pod{Spec: spec, Source: p.is.doc})
	}
	sortIssues(l.issues)
	errs, warns := split(l.issues, l.opts.Strict)
	res.Warnings = warns
	if len(errs) > 0 {
		return nil, &LoadError{Issues: errs, Warnings: warns}
	}
	return res, nil
}
