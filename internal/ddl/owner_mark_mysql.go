// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"encoding/json"
	"regexp"
	"slices"
)

// MySQL 8.0.21+ owner logins carry their OwnerMark in the login's ATTRIBUTE
// (JSON, read from information_schema.USER_ATTRIBUTES), beside the claim
// mark that is their identity:
//
//	{"tenantdb": "tenantdb:<hex>", "tenantdb_db": "<database>",
//	 "tenantdb_from": "tenantdb:<hex of the login taken over from>", "tenantdb_status": "open"}
//
// CREATE USER sets it, open; the plan's last statement merges
// {"tenantdb_status": "done"} into it (MySQL merges an ATTRIBUTE into the
// account's own, as JSON_MERGE_PATCH does). Only the admin can write it: a
// login changing its own attribute is refused (1227), so a tenant cannot
// forge a mark, nor reopen one. On MySQL a rotation's FromRole is the
// claim mark of the login it takes over from (its identity's last part),
// and a mark names the database by name: DBIdentity stays "". MySQL runs
// the plan statement by statement (DDL commits), so an apply killed
// between the CREATE USER and the last statement leaves an open mark.
// Logins made by earlier versions carry the claim mark alone: no owner
// mark, refused as before (PreExistingOwnerUser).

// mysqlClaimAttribute is the ATTRIBUTE clause CreateMarkedOwner ends a
// MySQL CREATE USER with; MarkOwnerPlan widens it to the owner mark.
var mysqlClaimAttribute = regexp.MustCompile(` ATTRIBUTE '\{"tenantdb": "(tenantdb:[0-9a-f]{32})"\}'$`)

// mysqlAttributeClause renders an ATTRIBUTE clause. json holds only names
// that match this package's patterns (no quote, no backslash).
func mysqlAttributeClause(json string) string { return " ATTRIBUTE " + mysqlLiteral(json) }

// mysqlOwnerAttribute is the JSON of an open owner mark for the login
// whose claim mark is claim.
func mysqlOwnerAttribute(claim string, mark OwnerMark) string {
	s := `{"tenantdb": "` + claim + `", "tenantdb_db": "` + mark.Database.s + `"`
	if mark.FromRole != "" {
		s += `, "tenantdb_from": "` + mark.FromRole + `"`
	}
	return s + `, "tenantdb_status": "open"}`
}

// markMySQLOwnerPlan is MarkOwnerPlan on MySQL 8.0.21+: the plan's CREATE
// USER (its first statement, as CreateMarkedOwner rendered it) carries
// the open mark, and an ALTER USER marking it done ends the plan. A plan
// without that CREATE USER, or a mark this package would not render,
// stays as it is.
func markMySQLOwnerPlan(p Plan, owner Username, mark OwnerMark) Plan {
	if len(p.Statements) == 0 || mark.Database.s == "" || (mark.FromRole != "" && !claimMarkPattern.MatchString(mark.FromRole)) {
		return p
	}
	first := p.Statements[0]
	g := mysqlClaimAttribute.FindStringSubmatch(first.sql)
	if g == nil || !mysqlClaimAttribute.MatchString(first.redacted) {
		return p
	}
	clause := mysqlAttributeClause(mysqlOwnerAttribute(g[1], mark))
	first.sql = first.sql[:len(first.sql)-len(g[0])] + clause
	first.redacted = mysqlClaimAttribute.ReplaceAllLiteralString(first.redacted, clause)
	p.Statements = slices.Clone(p.Statements)
	p.Statements[0] = first
	p.Statements = append(p.Statements, sql("ALTER USER ", mysqlAccount(owner), mysqlAttributeClause(`{"tenantdb_status": "done"}`)).done())
	return p
}

// ParseMySQLOwnerMark reads a MySQL login's ATTRIBUTE; ok is false when it
// holds no owner mark (another's attributes, a login made by an earlier
// version, or none). A mark without a status reads as done.
func ParseMySQLOwnerMark(attribute string) (OwnerMark, bool) {
	var a struct {
		Claim  string `json:"tenantdb"`
		DB     string `json:"tenantdb_db"`
		From   string `json:"tenantdb_from"`
		Status string `json:"tenantdb_status"`
	}
	if json.Unmarshal([]byte(attribute), &a) != nil || !claimMarkPattern.MatchString(a.Claim) ||
		(a.From != "" && !claimMarkPattern.MatchString(a.From)) || (a.Status != "" && a.Status != "open" && a.Status != "done") {
		return OwnerMark{}, false
	}
	db, err := NewDatabaseName(EngineMySQL, a.DB)
	if err != nil {
		return OwnerMark{}, false
	}
	return OwnerMark{Database: db, FromRole: a.From, Finished: a.Status != "open"}, true
}
