// SPDX-License-Identifier: MPL-2.0

package dbclient

import "sync"

// Fault points let tests interrupt an operation where a real server cannot
// be made to fail on demand (MariaDB drops a login even with live sessions).
// No fault is armed outside tests; checking one costs a map lookup.
const (
	// FaultDropOldOwner fails the drop of an owner login: the old login at
	// the end of a username rotation, a pending old login's retried drop,
	// the owner's destroy. Arm it keyed by the login's name.
	FaultDropOldOwner = "drop-old-owner"
	// faultClaimLostBefore and faultClaimLostAfter make a CREATE DATABASE
	// claim end in a lost connection, before or after it ran.
	faultClaimLostBefore = "claim-lost-before"
	faultClaimLostAfter  = "claim-lost-after"
)

var faults struct {
	sync.Mutex
	armed map[string]error
}

// InjectFault makes the named fault point return err until disarmed. With
// a key (a database or login name) only that object's operations fail, so
// parallel tests do not disturb each other.
func InjectFault(point string, err error, key ...string) (disarm func()) {
	k := faultKey(point, key)
	faults.Lock()
	defer faults.Unlock()
	if faults.armed == nil {
		faults.armed = map[string]error{}
	}
	faults.armed[k] = err
	return func() {
		faults.Lock()
		defer faults.Unlock()
		delete(faults.armed, k)
	}
}

func faultKey(point string, key []string) string {
	if len(key) == 0 {
		return point
	}
	return point + "|" + key[0]
}

// fault returns the error armed for point, for any object or for this one.
func fault(point, object string) error {
	faults.Lock()
	defer faults.Unlock()
	if err := faults.armed[point]; err != nil {
		return err
	}
	return faults.armed[point+"|"+object]
}
