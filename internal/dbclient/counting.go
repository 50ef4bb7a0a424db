// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql/driver"
)

// countingConnector counts connections opened, so tests and benchmarks can
// prove the pool is reused rather than dialled per statement.
type countingConnector struct {
	driver.Connector
	opened func()
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err == nil {
		c.opened()
	}
	return conn, err
}
