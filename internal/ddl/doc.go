// SPDX-License-Identifier: MPL-2.0

// Package ddl is the validated DDL engine of the tenantdb provider.
//
// It turns tenant specifications into exact SQL for MySQL 8, MariaDB 10.6+
// and PostgreSQL 15+. Every value that reaches SQL is a validated type built
// by a constructor that rejects bad input with a typed *Error carrying a
// pinned reason word; dialects render ordered statement plans from those
// types only. Nothing else in the module concatenates SQL.
//
// The package is pure: it imports no database driver and no
// terraform-plugin-* module, so it is tested offline.
package ddl
