// SPDX-License-Identifier: MPL-2.0

package session

import "github.com/tenantdb/terraform-provider-tenantdb/internal/faultpoint"

// Fault points (internal/faultpoint) let tests interrupt an operation where
// a real server cannot be made to fail on demand. The claim points are
// armed only by this package's tests.
const (
	// faultClaimLostBefore and faultClaimLostAfter make a CREATE DATABASE
	// claim end in a lost connection, before or after it ran.
	FaultClaimLostBefore = "claim-lost-before"
	FaultClaimLostAfter  = "claim-lost-after"

	FaultDropOldOwner = faultpoint.DropOldOwner
)

// Fault returns the error armed for point, for any object or for this one.
func Fault(point, object string) error { return faultpoint.Check(point, object) }
