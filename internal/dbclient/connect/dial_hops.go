// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"errors"
	"fmt"
)

// A connection through a bastion or proxy crosses two hops: to the bastion
// or proxy, then from it to the database. A failure names the hop that
// failed, and says whether a retry can help, on both engines:
//
//   - pgx replaces any dial error that is a timeout (a net.Error whose
//     Timeout() is true, context.DeadlineExceeded included) by its own
//     "timeout: context deadline exceeded", dropping the text that named
//     the bastion or proxy. hopError therefore does not unwrap: the chain
//     ends at it, pgx keeps its text, and its verdict (not the wrapped
//     error's class) decides the retry.
//   - go-sql-driver keeps the text, but a hop that timed out read as a lost
//     connection (a net.Error), retried five times: 54 s instead of 10 for
//     a bastion that never answers. A hop that did not answer within the
//     connect timeout is not retried, unless the next attempt dials anew
//     (a channel open that timed out on a link that went silent: the
//     client is forgotten, so the retry redials the bastion).

// hop names a hop of a connection.
type hop string

const (
	HopBastion  hop = "SSH bastion"
	HopProxy    hop = "SOCKS5 proxy"
	HopDatabase hop = "database"
)

// HopError is a failed dial through a bastion or proxy.
type HopError struct {
	hop   hop
	addr  string // the hop's address (the database's for hopDatabase)
	msg   string // the whole message, naming the hop
	class ErrClass
}

func (e *HopError) Error() string     { return e.msg }
func (e *HopError) Verdict() ErrClass { return e.class }

// fix is what to check, for the PrimaryUnavailable refusal after retries.
func (e *HopError) fix() string {
	if e.hop == HopDatabase {
		return fmt.Sprintf("Check that the database at %s is up and reachable from the bastion or proxy, then apply again.", e.addr)
	}
	return fmt.Sprintf("Check that the %s %s is up and reachable from the machine running Terraform, then apply again.", e.hop, e.addr)
}

// NewHopError words err as a failure at hop (at addr), for server. A
// timeout, of ctx or of the connection's deadline, is named as such and is
// terminal unless retryable says the next attempt dials anew.
func NewHopError(ctx context.Context, h hop, addr, through string, err error, retryable bool) *HopError {
	timedOut := ctx.Err() != nil || isTimeout(err)
	class := ClassTransient
	if timedOut && !retryable {
		class = ClassTerminal
	}
	var msg string
	switch {
	case h == HopDatabase:
		msg = fmt.Sprintf("the %s could not connect to the database at %s: %v", through, addr, err)
	case timedOut:
		msg = fmt.Sprintf("the %s %s did not answer in time (connect timeout %s): %v", h, addr, connectTimeout, err)
	default:
		msg = fmt.Sprintf("the %s %s cannot be reached: %v", h, addr, err)
	}
	return &HopError{hop: h, addr: addr, msg: msg, class: class}
}

// isHopError reports a dial that failed at a bastion or proxy.
func isHopError(err error) bool {
	var he *HopError
	return errors.As(err, &he)
}

// UnavailableFix is the PrimaryUnavailable fix for the last error: the hop
// that failed, or the primary.
func UnavailableFix(last error) string {
	var he *HopError
	if errors.As(last, &he) {
		return he.fix()
	}
	return "Check that the primary is reachable and writable (not read-only or failing over), then apply again."
}
