// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"errors"
	"fmt"
)

// Reason is a pinned refusal or warning word. Tests outside the project match
// these exact strings, so never rename one.
type Reason string

// Refusals (errors).
const (
	InvalidIdentifier    Reason = "InvalidIdentifier"
	PrivilegeNotAllowed  Reason = "PrivilegeNotAllowed"
	ImmutableAttribute   Reason = "ImmutableAttribute"
	MissingAdminRights   Reason = "MissingAdminRights"
	UnsupportedServer    Reason = "UnsupportedServer"
	DatabasePreExists    Reason = "DatabasePreExists"
	PreExistingOwnerUser Reason = "PreExistingOwnerUser"
	OwnerUserReserved    Reason = "OwnerUserReserved"
	OwnerConflict        Reason = "OwnerConflict"
	GrantUserMissing     Reason = "GrantUserMissing"
	GrantUserReserved    Reason = "GrantUserReserved"
	DatabaseInUse        Reason = "DatabaseInUse"
	PrimaryUnavailable   Reason = "PrimaryUnavailable"
	IdentityMismatch     Reason = "IdentityMismatch"
	// DatabaseInvalid: a PostgreSQL database whose DROP DATABASE was
	// stopped part way (datconnlimit = -2); only its drop is allowed.
	DatabaseInvalid Reason = "DatabaseInvalid"
)

// Warnings.
const (
	DatabaseRetained    Reason = "DatabaseRetained"
	DatabaseDropSkipped Reason = "DatabaseDropSkipped"
	DriftDetected       Reason = "DriftDetected"
)

// Error is a refusal: the reason word, the object it concerns, why, and what
// to do. It never carries secret material: constructors only ever put names
// and fixed text in it.
type Error struct {
	Reason Reason
	Object string // e.g. `database "acme_wms"`
	Why    string
	Fix    string
}

// Summary is the one-line diagnostic summary; it starts with the reason word.
func (e *Error) Summary() string {
	return fmt.Sprintf("%s: %s", e.Reason, e.Object)
}

// Detail is the diagnostic detail: why, then what to do.
func (e *Error) Detail() string {
	if e.Fix == "" {
		return e.Why
	}
	return e.Why + "\n\n" + e.Fix
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s: %s", e.Reason, e.Object, e.Why)
	if e.Fix != "" {
		s += " " + e.Fix
	}
	return s
}

// ReasonOf returns the reason of the first *Error in err's chain, or "".
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

func refuse(r Reason, object, why, fix string) *Error {
	return &Error{Reason: r, Object: object, Why: why, Fix: fix}
}
