//go:build !linux

package breakdown

import (
	"context"
	"errors"
	"time"
)

type processAccounting struct{}

type acctRecord struct {
	comm      string
	pid, ppid int
	cpu       time.Duration
}

func startAccounting(string) (*processAccounting, error) {
	return nil, errors.New("process accounting is Linux only")
}
func (*processAccounting) stop() error                                { return nil }
func (*processAccounting) offset() int64                              { return 0 }
func (*processAccounting) records(int64, int64) ([]acctRecord, error) { return nil, nil }

type cpuGroup struct{}

func newCPUGroup(string, ...int) (*cpuGroup, error) { return nil, nil }
func (*cpuGroup) usage() time.Duration              { return 0 }
func (*cpuGroup) close()                            {}
func (*cpuGroup) pids() []int                       { return nil }

type cpuSampler struct{}

type perfSample struct {
	comm string
	pid  int
	at   time.Duration
}

const perfPeriod = time.Millisecond

func startSampler(context.Context, string, ...int) (*cpuSampler, error) {
	return nil, errors.New("perf is Linux only")
}
func (*cpuSampler) stop() error                    { return nil }
func (*cpuSampler) samples() ([]perfSample, error) { return nil, nil }
func monotonic() time.Duration                     { return 0 }
