// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestConcurrentOperations runs more locked operations at once than the
// admin pool has connections (Terraform's default parallelism is 10). Each
// operation must run on the connection that holds its lock; taking a second
// one would deadlock the pool.
func TestConcurrentOperations(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		const n = 3 * session.AdminPoolMaxOpen
		dbs := make([]ddl.DatabaseName, n)
		for i := range dbs {
			dbs[i] = e.newDB("conc")
		}
		ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
		defer cancel()
		var wg sync.WaitGroup
		errs := make(chan error, 2*n)
		for _, db := range dbs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := e.s.CreateDatabase(ctx, db, mustCharset(t, defaultCharset(e)), mustCollation(t, defaultCollation(e))); err != nil {
					errs <- err
					return
				}
				if _, err := e.s.proof.Database(ctx, db); err != nil {
					errs <- err
				}
				if err := e.s.DropDatabase(ctx, db); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if ctx.Err() != nil {
			t.Fatal("concurrent operations did not finish: the admin pool deadlocked")
		}
		t.Logf("%d concurrent create+read+drop: %d connections opened", n, e.reg.ConnectionsOpened())
	})
}
