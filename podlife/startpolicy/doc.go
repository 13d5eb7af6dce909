// Package startpolicy holds podlife's start policies: when each of a pod's app containers
// starts (PodSpec.StartPolicy), and what a container waits for under DependencyOrder
// (ContainerSpec.DependsOn). The kubelet has one order, [Sequential], podlife's default; a
// program that wants another picks one here or writes its own [Policy]:
//
//	spec := podlife.PodSpec{
//		Name:        "app",
//		StartPolicy: startpolicy.DependencyOrder(),
//		Containers: []podlife.ContainerSpec{
//			{Name: "db", Image: "docker.io/library/postgres:17"},
//			{Name: "api", Image: "example.com/api:1", DependsOn: []startpolicy.Dependency{
//				{Container: "db", Condition: startpolicy.ContainerReady},
//			}},
//		},
//	}
//
// It declares the policies and their vocabulary only. It imports podlife's internal packages,
// never package podlife, which takes these values as they are.
package startpolicy
