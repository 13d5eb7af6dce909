// Package podstart is the order of a pod's cold start and the shape of its errors: the
// sandbox's steps, the network attach beside the containers' preparations, the init
// containers one at a time, then the start policy's ([Run]); one container's preparation,
// image to created task, with the waiting reasons and events of each failure ([Prepare]);
// the init containers' run ([RunInits]); which failure explains a start that failed
// ([RootPrepError], [SetupError], [AppsResult]); and what becomes of the pod once its start
// returned: started, kept, kept with a container's config error, left to another Runtime, or
// removed ([OutcomeOf], [Conclude]). A warm pool member's make and start run the same steps
// (podlife/internal/worker/warmmember).
//
// The worker (package podlife/internal/worker) keeps the pod's state and runs every step: it
// passes them as callbacks over plain values ([Pod], [Container], [Prep], [Init]), which run
// the step's I/O off its loop and its state changes on it. Nothing here touches the pod's
// state or starts a goroutine of its own: [Pod.Go] starts them in the worker's group.
//
// It must not import the worker (arrows one way: worker -> podstart), package podlife,
// podlife/internal/ctrd, podlife/internal/tasks, podlife/internal/poddir, podlife/daemon or
// cni (TestPackageArrows checks it).
package podstart
