package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

// imageCmd is `image import FILE...` and `image ls`, on the containerd podlife uses.
func imageCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "import" && args[0] != "ls" {
		fmt.Fprintln(stderr, "usage: podlife image import FILE... | podlife image ls")
		return 2
	}
	sub := args[0]
	fs := flag.NewFlagSet("image "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := addCommon(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if sub == "import" && fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: podlife image import FILE...")
		return 2
	}
	rt, err := c.runtime(ctx, stderr)
	if err != nil {
		return fail(stderr, "image", err)
	}
	defer rt.Close()
	if sub == "import" {
		for _, path := range fs.Args() {
			if err := importArchive(ctx, rt, path, stdout); err != nil {
				return fail(stderr, "image import", err)
			}
		}
		return 0
	}
	imgs, err := rt.Images(ctx)
	if err != nil {
		return fail(stderr, "image ls", err)
	}
	fmt.Fprintf(stdout, "%-48s %-20s %s\n", "REF", "DIGEST", "SIZE")
	for _, img := range imgs {
		_, hex, _ := strings.Cut(img.Digest, ":")
		fmt.Fprintf(stdout, "%-48s %-20s %.1f MiB\n", img.Name, hex[:min(12, len(hex))], float64(img.Size)/(1<<20))
	}
	return 0
}
