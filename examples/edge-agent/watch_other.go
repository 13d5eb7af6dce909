//go:build !linux

package main

import (
	"context"
	"errors"
)

// watchDir is inotify's, on Linux only: elsewhere the agent reads the directory periodically.
func watchDir(context.Context, string, func()) error { return errors.ErrUnsupported }
