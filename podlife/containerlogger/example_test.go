package containerlogger_test

import (
	"context"
	"log"
	"os"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/containerlogger"
)

// A program that is its own container logger: containerd's shim starts it again, with the
// logger's arguments, beside each container; Serve then takes over the process.
func Example() {
	if containerlogger.Invoked() {
		containerlogger.Serve() // never returns
	}
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	rt, err := podlife.New(context.Background(), podlife.Config{ContainerLogger: exe})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	// rt.Run(...): the pods' output keeps being written when this process is gone.
}
