// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestKeepGoing: only a statement marked uncancellable runs without its
// operation's cancel; one whose operation already ended is never sent.
func TestKeepGoing(t *testing.T) {
	s := &Session{spec: connect.Spec{Engine: ddl.EnginePostgres}}
	db, err := ddl.NewDatabaseName(ddl.EnginePostgres, "kg")
	if err != nil {
		t.Fatal(err)
	}
	drop := ddl.NewDialect(ddl.ServerInfo{Flavor: ddl.FlavorPostgres}).DropDatabase(db).Statements[0]
	other := ddl.Commit()
	if !drop.Uncancellable || other.Uncancellable {
		t.Fatalf("DROP DATABASE uncancellable = %v, COMMIT = %v; want only the drop", drop.Uncancellable, other.Uncancellable)
	}
	ctx, cancel := context.WithCancel(WithOverruns(context.Background()))
	run, finish, err := s.keepGoing(ctx, other)
	if err != nil || run != ctx {
		t.Fatalf("keepGoing(COMMIT) = %v, %v; want the operation's own context", run, err)
	}
	_ = finish(nil)
	run, finish, err = s.keepGoing(ctx, drop)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if run.Err() != nil {
		t.Fatal("the drop's context ended with the operation's")
	}
	if err := finish(nil); err != nil || len(Overruns(ctx)) != 1 {
		t.Fatalf("finish = %v, overruns %v; want the drop recorded as run past the deadline", err, Overruns(ctx))
	}
	if _, _, err := s.keepGoing(ctx, drop); err == nil {
		t.Fatal("a drop whose operation already ended would be sent")
	}
}
