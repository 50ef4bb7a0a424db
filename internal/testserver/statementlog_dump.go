// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
)

// StatementDumpEnv names a directory that receives each local server's raw
// statement log when the server stops (MariaDB/MySQL: the general log's CSV
// table file; PostgreSQL: the collector's jsonlog or csvlog). It exists to
// compare what a whole acceptance run sent the servers before and after a
// change that must not alter a statement (scripts/statement-log-diff.sh).
const StatementDumpEnv = "TENANTDB_TEST_STATEMENT_DUMP"

var dumpCounter atomic.Int64

// dumpStatementLogs copies the instance's statement logs into the dump
// directory, if one is set. The server has stopped: the files are complete.
func (li *localInstance) dumpStatementLogs() error {
	dir := os.Getenv(StatementDumpEnv)
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n := dumpCounter.Add(1)
	for _, src := range []string{
		li.path("data/mysql/general_log.CSV"),
		li.path(pgLogName + ".json"),
		li.path(pgLogName + ".csv"),
	} {
		if _, err := os.Stat(src); err != nil {
			continue
		}
		dst := filepath.Join(dir, fmt.Sprintf("%d-%d-%s-%s", os.Getpid(), n, filepath.Base(li.dir), filepath.Base(src)))
		if err := copyFile(src, dst); err != nil {
			return fmt.Errorf("dump statement log %s: %w", src, err)
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
