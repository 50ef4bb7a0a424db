// SPDX-License-Identifier: MPL-2.0

//go:build !linux

package demo

import (
	"context"
	"errors"
)

// throwawaySupported: internal/testserver builds on Linux only (it uses
// Linux process attributes), so elsewhere the demo runs on a named server.
const throwawaySupported = false

func startThrowaway(context.Context, flavor, source) (*target, error) {
	return nil, errors.New("throwaway servers need Linux: name a server with DEMO_HOST")
}

func dockerAvailable() bool { return false }

// localMySQLRoot: MySQL runs from a Debian root on Linux only.
func localMySQLRoot() bool { return false }
