// SPDX-License-Identifier: MPL-2.0

package demo

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"
)

// keepUntilInterrupted leaves the server running after the checks and
// prints how to look around, until Ctrl-C; cleanup then runs as always.
// The server is a throwaway one with generated passwords: printing the
// admin's is the point here.
func (r *run) keepUntilInterrupted() {
	if r.tgt == nil {
		return
	}
	client := fmt.Sprintf("PGPASSWORD='%s' psql \"host=%s port=%d user=%s dbname=postgres sslmode=require\"",
		r.tgt.admin.password, r.tgt.host, r.tgt.port, r.tgt.admin.user)
	if r.tgt.engine != "postgres" {
		client = fmt.Sprintf("mariadb --host=%s --port=%d --user=%s --password='%s' --ssl", r.tgt.host, r.tgt.port, r.tgt.admin.user, r.tgt.admin.password)
	}
	fmt.Fprintf(r.out, "\nKEEP=1: the server stays up until Ctrl-C.\n  server    %s (%s)\n  admin     %s\n  connect   %s\n  terraform working directory (after its destroy step): %s\n",
		r.tgt.addr(), r.tgt.version, r.tgt.admin.user, client, r.tmp)
	ctx, stop := signal.NotifyContext(context.WithoutCancel(r.ctx), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	fmt.Fprintln(r.out)
}
