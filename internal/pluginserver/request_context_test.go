// SPDX-License-Identifier: MPL-2.0

package pluginserver

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

type testCtxKey struct{}

func TestRequestContextIsItsParentUntilReleased(t *testing.T) {
	deadline := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.WithValue(context.Background(), testCtxKey{}, "v"), deadline)
	defer cancel()
	rc := newRequestContext(parent)

	if got := rc.Value(testCtxKey{}); got != "v" {
		t.Errorf("Value = %v, want the parent's value", got)
	}
	if d, ok := rc.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("Deadline = %v, %v; want the parent's", d, ok)
	}
	if rc.Done() != parent.Done() {
		t.Error("Done is not the parent's channel")
	}
	if rc.Err() != nil {
		t.Errorf("Err = %v before cancellation", rc.Err())
	}
	cancel()
	if !errors.Is(rc.Err(), context.Canceled) {
		t.Errorf("Err = %v after the parent was cancelled", rc.Err())
	}
}

func TestRequestContextAfterRelease(t *testing.T) {
	tests := []struct {
		name string
		// parent returns the parent and what happens to it after release.
		parent  func() (context.Context, func())
		wantErr error
	}{
		{"cancelled before release", func() (context.Context, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, func() {}
		}, context.Canceled},
		{"cancelled after release", func() (context.Context, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			return ctx, cancel
		}, context.Canceled},
		{"deadline passes after release", func() (context.Context, func()) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			return ctx, func() { <-ctx.Done(); cancel() }
		}, context.DeadlineExceeded},
		{"never done", func() (context.Context, func()) {
			return context.Background(), func() {}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent, after := tt.parent()
			parent = context.WithValue(parent, testCtxKey{}, "v")
			rc := newRequestContext(parent)
			// A child made during the request, as the framework makes one.
			child, cancelChild := context.WithCancel(rc)
			defer cancelChild()
			rc.release()
			after()

			if got := rc.Value(testCtxKey{}); got != nil {
				t.Errorf("Value = %v after release, want nil", got)
			}
			if rc.Done() != parent.Done() {
				t.Error("Done changed at release")
			}
			if !errors.Is(rc.Err(), tt.wantErr) || (tt.wantErr == nil) != (rc.Err() == nil) {
				t.Errorf("Err = %v, want %v", rc.Err(), tt.wantErr)
			}
			if tt.wantErr == nil {
				return
			}
			select {
			case <-child.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("a child of the request context was not cancelled with its parent")
			}
		})
	}
}

// TestReleaseLetsTheParentChainGo is what releasingServer is for: a child
// context kept forever (as the framework keeps one per request) no longer
// keeps the request's values once the request context is released.
func TestReleaseLetsTheParentChainGo(t *testing.T) {
	for _, release := range []bool{true, false} {
		parent, cancel := context.WithCancel(context.Background())
		freed := make(chan struct{})
		value := new([1 << 16]byte)
		runtime.AddCleanup(value, func(ch chan struct{}) { close(ch) }, freed)
		rc := newRequestContext(context.WithValue(parent, testCtxKey{}, value))
		value = nil //nolint:ineffassign // drop the last reference: the cleanup above must be able to run
		// Kept and not cancelled until the end, like the framework's.
		kept, cancelKept := context.WithCancel(rc)
		if release {
			rc.release()
		}
		cancel()
		rc = nil

		collected := false
		for i := 0; i < 20 && !collected; i++ {
			runtime.GC()
			select {
			case <-freed:
				collected = true
			case <-time.After(10 * time.Millisecond):
			}
		}
		if collected != release {
			t.Errorf("release=%v: request values collected = %v", release, collected)
		}
		runtime.KeepAlive(kept)
		cancelKept()
	}
}
