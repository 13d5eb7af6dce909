package podlifetest

import (
	"bytes"
	"context"
	"fmt"

	"github.com/containerd/containerd/v2/client"
)

// ImportBusybox builds the archive of [BusyboxArchive] in memory, imports it
// into c as ref and unpacks it for the default snapshotter (overlayfs
// unless the client says otherwise, see [WithSnapshotter]). ctx must carry
// the namespace to import into (namespaces.WithNamespace) unless c has a
// default namespace. Importing the same ref again is cheap and yields the
// same image.
func ImportBusybox(ctx context.Context, c *client.Client, ref string, opts ...BusyboxOption) (client.Image, error) {
	o := newBusyboxOptions(opts)
	var archive bytes.Buffer
	if err := BusyboxArchive(&archive, ref, opts...); err != nil {
		return nil, err
	}
	imgs, err := c.Import(ctx, &archive)
	if err != nil {
		return nil, fmt.Errorf("podlifetest: import busybox: %w", err)
	}
	for _, meta := range imgs {
		if meta.Name != ref {
			continue
		}
		img := client.NewImage(c, meta)
		if err := img.Unpack(ctx, o.snapshotter); err != nil {
			return nil, fmt.Errorf("podlifetest: unpack busybox: %w", err)
		}
		return img, nil
	}
	return nil, fmt.Errorf("podlifetest: import busybox: no image named %q among the %d imported", ref, len(imgs))
}
