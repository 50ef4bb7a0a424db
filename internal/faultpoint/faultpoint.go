// SPDX-License-Identifier: MPL-2.0

// Package faultpoint lets tests interrupt an operation of internal/dbclient
// where a real server cannot be made to fail on demand (MariaDB drops a
// login even with live sessions). Nothing arms a fault outside tests;
// checking one costs a map lookup. It lives apart from dbclient so that
// dbclient's API is only what the provider uses.
package faultpoint

import "sync"

// DropOldOwner fails the drop of an owner login: the old login at the end
// of a username rotation, a pending old login's retried drop, the owner's
// destroy. Arm it keyed by the login's name. (dbclient's own tests arm
// further points, named in dbclient.)
const DropOldOwner = "drop-old-owner"

var faults struct {
	sync.Mutex
	armed map[string]error
}

// Inject makes the named fault point return err until disarmed. With a key
// (a database or login name) only that object's operations fail, so
// parallel tests do not disturb each other.
func Inject(point string, err error, key ...string) (disarm func()) {
	k := point
	if len(key) > 0 {
		k += "|" + key[0]
	}
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

// Check returns the error armed for point, for any object or for this one.
func Check(point, object string) error {
	faults.Lock()
	defer faults.Unlock()
	if err := faults.armed[point]; err != nil {
		return err
	}
	return faults.armed[point+"|"+object]
}
