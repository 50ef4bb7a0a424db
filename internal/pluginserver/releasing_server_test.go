// SPDX-License-Identifier: MPL-2.0

package pluginserver

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/provider"
)

func TestReleaseRequestsWrapsTheFramework(t *testing.T) {
	s := ReleaseRequests(providerserver.NewProtocol6(provider.New("test")())())
	if _, ok := s.(releasingServer); !ok {
		t.Fatalf("the framework's server (%T) lacks an interface of frameworkServer: "+
			"update frameworkServer to the protocol interfaces tf6server asks for", s)
	}
}

// requestsKept serves n GetMetadata requests the way gRPC does (a context
// per request, cancelled when the request has returned) and reports how
// many of their contexts' values are still reachable afterwards.
func requestsKept(t *testing.T, s tfprotov6.ProviderServer, n int) int {
	t.Helper()
	var freed atomic.Int64
	for i := 0; i < n; i++ {
		value := new([1 << 12]byte)
		runtime.AddCleanup(value, func(f *atomic.Int64) { f.Add(1) }, &freed)
		ctx, cancel := context.WithCancel(context.WithValue(context.Background(), testCtxKey{}, value))
		if _, err := s.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{}); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	for i := 0; i < 20 && freed.Load() < int64(n); i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	// The server must outlive the check: what it keeps dies with it.
	runtime.KeepAlive(s)
	return n - int(freed.Load())
}

// TestReleasingServerFreesRequestContexts: through the wrapper, nothing of
// a finished request stays reachable.
func TestReleasingServerFreesRequestContexts(t *testing.T) {
	s := ReleaseRequests(providerserver.NewProtocol6(provider.New("test")())())
	if kept := requestsKept(t, s, 50); kept != 0 {
		t.Errorf("%d of 50 finished requests' contexts are still reachable through releasingServer", kept)
	}
}

// TestFrameworkKeepsRequestContexts is the upstream behaviour the wrapper
// works around. When it fails, the framework has stopped keeping request
// contexts and releasingServer can go.
func TestFrameworkKeepsRequestContexts(t *testing.T) {
	s := providerserver.NewProtocol6(provider.New("test")())()
	if kept := requestsKept(t, s, 50); kept != 50 {
		t.Errorf("the framework kept %d of 50 finished requests' contexts, not all: "+
			"releasingServer may no longer be needed", kept)
	}
}
