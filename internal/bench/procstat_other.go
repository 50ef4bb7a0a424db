// SPDX-License-Identifier: MPL-2.0

//go:build !linux

package bench

import (
	"errors"
	"runtime"
	"strconv"
	"time"
)

// The bench reads /proc: elsewhere it refuses to run (Run checks
// supported) and these stubs only keep the package building.

const supported = false

type procTimes struct{ self, children time.Duration }

func readProcTimes(int) (procTimes, bool) { return procTimes{}, false }

func serverCPU(int) (time.Duration, bool) { return 0, false }

type procWatch struct{}

func watchProcess(int, time.Duration, int) *procWatch { return &procWatch{} }

func (*procWatch) sshCounts() (int, int, int) { return 0, 0, 0 }

func (*procWatch) finish() (time.Duration, uint64, uint64, int) { return 0, 0, 0, 0 }

func waitExited(int) error { return errors.New("bench: Linux only") }

func rusageCPU(any) time.Duration { return 0 }

func machine() (string, string, string) { return strconv.Itoa(runtime.NumCPU()), "", "" }
