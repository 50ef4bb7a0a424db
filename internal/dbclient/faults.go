// SPDX-License-Identifier: MPL-2.0

package dbclient

import "sync"

// Fault points let tests interrupt an operation where a real server cannot
// be made to fail on demand (MariaDB drops a login even with live sessions).
// No fault is armed outside tests; checking one costs a map lookup.
const (
	// FaultDropOldOwner fails the drop of the old login at the end of an
	// owner username rotation.
	FaultDropOldOwner = "drop-old-owner"
)

var faults struct {
	sync.Mutex
	armed map[string]error
}

// InjectFault makes the named fault point return err until disarmed.
func InjectFault(point string, err error) (disarm func()) {
	faults.Lock()
	defer faults.Unlock()
	if faults.armed == nil {
		faults.armed = map[string]error{}
	}
	faults.armed[point] = err
	return func() {
		faults.Lock()
		defer faults.Unlock()
		delete(faults.armed, point)
	}
}

func fault(point string) error {
	faults.Lock()
	defer faults.Unlock()
	return faults.armed[point]
}
