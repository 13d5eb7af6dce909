package report

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ChildPath returns root.Child(name), or a new path when root is nil.
func ChildPath(root *field.Path, name string) *field.Path {
	if root == nil {
		return field.NewPath(name)
	}
	return root.Child(name)
}

// JSONString formats a value as JSON for a message, as Kubernetes quotes values.
func JSONString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
