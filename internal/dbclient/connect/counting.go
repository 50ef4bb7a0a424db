// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"database/sql/driver"
)

// CountingConnector counts connections opened, so tests and benchmarks can
// prove the pool is reused rather than dialled per statement.
type CountingConnector struct {
	driver.Connector
	opened func()
}

// NewCountingConnector wraps c so that opened is called for each
// connection it opens.
func NewCountingConnector(c driver.Connector, opened func()) CountingConnector {
	return CountingConnector{c, opened}
}

func (c CountingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err == nil {
		c.opened()
	}
	return conn, err
}
