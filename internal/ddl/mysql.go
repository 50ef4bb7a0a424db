// SPDX-License-Identifier: MPL-2.0

package ddl

import "strings"

// mysql renders for MySQL 8 and MariaDB 10.6+; info decides the few
// statements they do not share.
type mysql struct{ info ServerInfo }

func (d mysql) Info() ServerInfo { return d.info }

func (d mysql) isMySQL(major, minor, patch int) bool {
	return d.info.Flavor == FlavorMySQL && d.info.Version.AtLeast(major, minor, patch)
}

// CreateDatabase renders what is given: a zero Collation lets the server
// pick the character set's default collation (CHARACTER SET latin1 gives
// latin1_swedish_ci), a zero Charset the collation's character set, and both
// zero the server's defaults.
func (d mysql) CreateDatabase(db DatabaseName, cs Charset, co Collation) Plan {
	return d.CreateMarkedDatabase(db, cs, co, ClaimMark{})
}

// CreateMarkedDatabase records mark as the schema comment where the server
// has one (MariaDB), in the same statement that claims the name.
func (d mysql) CreateMarkedDatabase(db DatabaseName, cs Charset, co Collation, mark ClaimMark) Plan {
	b := sql("CREATE DATABASE ", mysqlIdent(db.s), d.charsetClause(cs, co))
	if !mark.IsZero() && StoresClaimMark(d.info) {
		b.add(" COMMENT ", mysqlLiteral(mark.s))
	}
	return Plan{Statements: []Statement{b.claims().done()}}
}

// AlterDatabase changes what is given, as CreateDatabase; with neither it
// is an empty plan (a bare ALTER DATABASE is a syntax error, 1064).
func (d mysql) AlterDatabase(db DatabaseName, cs Charset, co Collation) (Plan, error) {
	if cs.IsZero() && co.IsZero() {
		return Plan{}, nil
	}
	return Plan{Statements: []Statement{
		sql("ALTER DATABASE ", mysqlIdent(db.s), d.charsetClause(cs, co)).done(),
	}}, nil
}

func (d mysql) charsetClause(cs Charset, co Collation) string {
	var b strings.Builder
	if !cs.IsZero() {
		b.WriteString(" CHARACTER SET " + mysqlIdent(cs.s))
	}
	if !co.IsZero() {
		b.WriteString(" COLLATE " + mysqlIdent(co.s))
	}
	return b.String()
}

// DropDatabase is never killed once sent: MySQL/MariaDB drop the tables
// one by one (not atomically on MariaDB), so a KILL QUERY after the
// metadata locks were taken leaves some tables dropped. The wait for
// those locks is bounded by lock_wait_timeout (the provider's
// lock_timeout).
func (d mysql) DropDatabase(db DatabaseName) Plan {
	return Plan{Statements: []Statement{sql("DROP DATABASE IF EXISTS ", mysqlIdent(db.s)).uncancellable().done()}}
}

func (d mysql) CreateOwner(db DatabaseName, owner Username, pw Password, privs PrivilegeSet) Plan {
	keywords, literal := d.identifiedBy(pw)
	create := sql("CREATE USER ", mysqlAccount(owner), keywords).secret(literal).add(ownerLimitMarkClause(db)).claims().done()
	grant := d.SyncPrivileges(db, owner, Username{}, PrivilegeDiff{Grant: grantList(d.info, privs)})
	return Plan{
		Statements: append([]Statement{create}, grant.Statements...),
		Undo:       d.DropLogin(db, owner).Statements,
	}
}

// grantList is what a fresh principal needs granted: ALL stays ALL.
func grantList(info ServerInfo, privs PrivilegeSet) []Privilege {
	if privs.IsAll() {
		return []Privilege{AllPrivileges}
	}
	return privs.Expand(info)
}

func (d mysql) SetPassword(user Username, pw Password, retainCurrent bool) Plan {
	keywords, literal := d.identifiedBy(pw)
	b := sql("ALTER USER ", mysqlAccount(user), keywords).secret(literal)
	if retainCurrent && d.isMySQL(8, 0, 14) {
		b.add(" RETAIN CURRENT PASSWORD")
	}
	return Plan{Statements: []Statement{b.done()}}
}

func (d mysql) DiscardOldPassword(user Username) Plan {
	if !d.isMySQL(8, 0, 14) {
		return Plan{}
	}
	return Plan{Statements: []Statement{sql("ALTER USER ", mysqlAccount(user), " DISCARD OLD PASSWORD").done()}}
}

// TransferOwnership is a no-op: MySQL databases have no owner; the new
// login's grant is what hands the database over.
func (d mysql) TransferOwnership(DatabaseName, Username, Username, OwnedContainers) Plan {
	return Plan{}
}

func (d mysql) DropLogin(_ DatabaseName, user Username) Plan {
	return Plan{Statements: []Statement{sql("DROP USER IF EXISTS ", mysqlAccount(user)).done()}}
}

func (d mysql) SyncPrivileges(db DatabaseName, grantee, _ Username, diff PrivilegeDiff) Plan {
	var p Plan
	target, account := mysqlGrantTarget(d.info, db), mysqlAccount(grantee)
	if len(diff.Grant) > 0 {
		grant := sql("GRANT ", joinPrivileges(diff.Grant), " ON ", target, " TO ", account)
		if d.info.Flavor == FlavorMariaDB {
			grant = sql(mariaDBNoAutoCreate, "GRANT ", joinPrivileges(diff.Grant), " ON ", target, " TO ", account)
		}
		p.Statements = append(p.Statements, grant.done())
	}
	var revoke []Privilege
	grantOption := false
	for _, r := range diff.Revoke {
		if r == GrantOption {
			grantOption = true
			continue
		}
		revoke = append(revoke, r)
	}
	if len(revoke) > 0 {
		p.Statements = append(p.Statements,
			sql("REVOKE ", joinPrivileges(revoke), " ON ", target, " FROM ", account).done())
	}
	if grantOption {
		p.Statements = append(p.Statements,
			sql("REVOKE GRANT OPTION ON ", target, " FROM ", account).done())
	}
	return p
}

func (d mysql) RevokeAll(db DatabaseName, grantee, _ Username) Plan {
	target, account := mysqlGrantTarget(d.info, db), mysqlAccount(grantee)
	// "ALL PRIVILEGES, GRANT OPTION" is only valid without ON (the global
	// form that strips every level); with ON db.* both MySQL 8 and MariaDB
	// answer 1064. So the privileges and the grant option are two revokes.
	if d.isMySQL(8, 0, 30) {
		return Plan{Statements: []Statement{
			sql("REVOKE IF EXISTS ALL PRIVILEGES ON ", target, " FROM ", account, " IGNORE UNKNOWN USER").done(),
			sql("REVOKE IF EXISTS GRANT OPTION ON ", target, " FROM ", account, " IGNORE UNKNOWN USER").done(),
		}}
	}
	// MariaDB has no IF EXISTS here: a missing grant (1141) or user (1269)
	// is tolerated by the executor instead.
	return Plan{Statements: []Statement{
		sql("REVOKE ALL PRIVILEGES ON ", target, " FROM ", account).okIfMissing().done(),
		sql("REVOKE GRANT OPTION ON ", target, " FROM ", account).okIfMissing().done(),
	}}
}

// mariaDBNoAutoCreate: MariaDB's GRANT creates a missing account, without a
// password, unless sql_mode has NO_AUTO_CREATE_USER, and the admin holds
// CREATE USER (it creates tenant owners). The pinned session sql_mode lacks
// it (MySQL 8 no longer knows the mode: its GRANT never creates accounts),
// so every MariaDB grant statement carries it itself: a principal dropped
// between the existence check and the GRANT makes the GRANT fail (1133)
// instead of bringing a passwordless account into existence.
const mariaDBNoAutoCreate = "SET STATEMENT sql_mode = '" + MySQLSessionSQLMode + ",NO_AUTO_CREATE_USER' FOR "
