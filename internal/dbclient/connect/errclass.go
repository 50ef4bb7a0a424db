// SPDX-License-Identifier: MPL-2.0

package connect

// ErrClass says what an error means for a retry.
type ErrClass int

const (
	// classTerminal: the server's verdict (access denied, syntax, exists).
	ClassTerminal ErrClass = iota
	// classTransient: read-only, lock wait, deadlock, too many connections,
	// shutdown; nothing happened, retrying is safe.
	ClassTransient
	// classOutcomeUnknown: the connection was lost mid-statement; the statement
	// may or may not have run. Read state back before retrying.
	ClassOutcomeUnknown
	// classConfiguration: the server cannot be reached as configured (TLS
	// verification, a host name that does not exist, the other engine's
	// port). Nothing ran; retrying cannot help, so it is never retried and
	// never reported as PrimaryUnavailable. See configError.
	ClassConfiguration
)

func (c ErrClass) String() string {
	return [...]string{"terminal", "transient", "outcome-unknown", "configuration"}[c]
}
