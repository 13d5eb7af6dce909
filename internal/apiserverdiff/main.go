// Command apiserverdiff runs the Kubernetes API server's own validation (k8s.io/kubernetes,
// the version in go.mod) on the manifests of podlife/kube's TestAPIServerValidation, and
// compares its errors with the ones the test expects from podlife. It is its own module, so
// that podlife does not depend on k8s.io/kubernetes.
//
//	PODLIFE_APISERVER_CASES=/tmp/cases.jsonl go test -run TestAPIServerValidation ./podlife/kube
//	cd internal/apiserverdiff && go run . /tmp/cases.jsonl
//
// It exits 1 if a row differs and is not marked deliberate (with its reason) in the test, or
// is marked deliberate and does not differ.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchv1conv "k8s.io/kubernetes/pkg/apis/batch/v1"
	batchvalidation "k8s.io/kubernetes/pkg/apis/batch/validation"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1conv "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	_ "k8s.io/kubernetes/pkg/features" // registers the default feature gates
)

// row is a line of the cases file.
type row struct {
	Name       string   `json:"name"`
	Manifest   string   `json:"manifest"`
	Want       []string `json:"want"`
	Deliberate string   `json:"deliberate"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: apiserverdiff CASES.jsonl")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	rows, differ := 0, 0
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		rows++
		got, err := validate(r.Manifest)
		if err != nil {
			fmt.Printf("%s: %v\n", r.Name, err)
			differ++
			continue
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(r.Want))
		if slices.Equal(got, want) {
			if r.Deliberate != "" {
				fmt.Printf("%s: marked deliberate but matches the API server\n", r.Name)
				differ++
			}
			continue
		}
		if r.Deliberate != "" {
			fmt.Printf("%s: differs on purpose (%s)\n", r.Name, r.Deliberate)
			continue
		}
		differ++
		fmt.Printf("%s:\n", r.Name)
		for _, g := range got {
			if !slices.Contains(want, g) {
				fmt.Printf("  API server: %s\n", g)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				fmt.Printf("  expected:   %s\n", w)
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("%d rows, %d differ\n", rows, differ)
	if differ > 0 {
		os.Exit(1)
	}
}

// validate runs the API server's defaulting and create validation on the last document of
// a manifest (a Pod, or a Job whose template's restartPolicy errors are kept).
func validate(manifest string) ([]string, error) {
	docs := strings.Split(manifest, "---\n")
	doc := []byte(docs[len(docs)-1])
	var out []string
	if strings.Contains(string(doc), "kind: Job") {
		var j batchv1.Job
		if err := yaml.Unmarshal(doc, &j); err != nil {
			return nil, err
		}
		batchv1conv.SetObjectDefaults_Job(&j)
		var in batch.Job
		if err := batchv1conv.Convert_v1_Job_To_batch_Job(&j, &in, nil); err != nil {
			return nil, err
		}
		in.Namespace = "default"
		opts := batchvalidation.JobValidationOptions{PodValidationOptions: podutil.GetValidationOptionsFromPodTemplate(&in.Spec.Template, nil)}
		// The selector and labels the Job controller would set are missing: keep the
		// template's errors only.
		for _, e := range batchvalidation.ValidateJobCreate(&in, opts) {
			if strings.HasPrefix(e.Field, "spec.template.spec.") {
				out = append(out, e.Error())
			}
		}
		return out, nil
	}
	var p v1.Pod
	if err := yaml.Unmarshal(doc, &p); err != nil {
		return nil, err
	}
	corev1conv.SetObjectDefaults_Pod(&p)
	var in core.Pod
	if err := corev1conv.Convert_v1_Pod_To_core_Pod(&p, &in, nil); err != nil {
		return nil, err
	}
	if in.Namespace == "" {
		in.Namespace = "default"
	}
	opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&in.Spec, nil, &in.ObjectMeta, nil)
	for _, e := range validation.ValidatePodCreate(&in, opts) {
		out = append(out, e.Error())
	}
	return out, nil
}
