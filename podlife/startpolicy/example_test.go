package startpolicy_test

import (
	"context"
	"fmt"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/startpolicy"
)

// reverseOrder is a start policy of its own: it starts containers in reverse spec order, one at
// a time.
type reverseOrder struct{}

func (reverseOrder) Start(ctx context.Context, s startpolicy.Starter) error {
	names := s.Containers()
	for i := len(names) - 1; i >= 0; i-- {
		if err := s.Start(ctx, names[i]); err != nil {
			return err
		}
	}
	return nil
}

// A start policy of your own is a type with a Start method.
func ExamplePolicy() {
	_ = podlife.PodSpec{Name: "p", StartPolicy: reverseOrder{}}
	fmt.Println("ok")
	// Output: ok
}

// A container that starts once another is ready, as Compose's depends_on.
func ExampleDependencyOrder() {
	spec := podlife.PodSpec{
		Name:        "app",
		StartPolicy: startpolicy.DependencyOrder(),
		Containers: []podlife.ContainerSpec{
			{Name: "db", Image: "docker.io/library/postgres:17"},
			{Name: "api", Image: "example.com/api:1", DependsOn: []startpolicy.Dependency{
				{Container: "db", Condition: startpolicy.ContainerReady},
			}},
		},
	}
	fmt.Println(spec.Validate())
	// Output: <nil>
}
