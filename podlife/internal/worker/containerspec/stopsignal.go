package containerspec

import (
	"fmt"
	"syscall"

	"github.com/moby/sys/signal"
)

// StopSignal is a container's stop signal: its spec's, else its image's STOPSIGNAL (image, ""
// for none), else SIGTERM. The one default admission cannot apply: the image is known only
// once it is there.
func StopSignal(spec syscall.Signal, image string) (syscall.Signal, error) {
	switch {
	case spec != 0:
		return spec, nil
	case image == "":
		return syscall.SIGTERM, nil
	}
	sig, err := signal.ParseSignal(image)
	if err != nil {
		return 0, fmt.Errorf("image STOPSIGNAL %q: %w", image, err)
	}
	return sig, nil
}
