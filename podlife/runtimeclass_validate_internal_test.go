package podlife

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Config.Validate checks the classes' names and roots; PodSpec.Validate the class name's form.
func TestRuntimeClassValidation(t *testing.T) {
	err := Config{RuntimeClasses: map[string]RuntimeClass{"Bad_Name": {}, "ok": {Root: "run/x"}}}.Validate()
	if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), "config.runtimeClasses[Bad_Name]") ||
		!strings.Contains(err.Error(), `config.runtimeClasses[ok].root: "run/x" must be an absolute path`) {
		t.Errorf("Config.Validate: %v", err)
	}
	s := PodSpec{Name: "p", RuntimeClassName: "Not_Valid", Containers: []ContainerSpec{{Name: "c", Image: "busybox"}}}
	err = s.Validate()
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Errs) != 1 || verr.Errs[0].Field != "spec.runtimeClassName" || verr.Errs[0].Type != field.ErrorTypeInvalid {
		t.Errorf("PodSpec.Validate: %v", err)
	}
}
