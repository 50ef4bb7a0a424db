// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// tenantImportID is the pinned import ID of tenant resources.
type tenantImportID struct {
	Server   json.RawMessage `json:"server"`
	Name     string          `json:"name"`
	Database string          `json:"database"`
	Username string          `json:"username"`
	// Host is the MySQL/MariaDB account's host (issue 46); absent: "%".
	Host *string `json:"host"`
}

// hostValue is the host attribute an import sets: null when the ID names
// none (the account at "%", as a configuration without host).
func (id tenantImportID) hostValue() types.String {
	if id.Host == nil {
		return types.StringNull()
	}
	return types.StringValue(*id.Host)
}

// checkHost validates the ID's host for the server's engine.
func (id tenantImportID) checkHost(ref serverRef) error {
	if id.Host == nil {
		return nil
	}
	if ref.engine() == ddl.EnginePostgres {
		return ddl.ErrHostOnPostgres(*id.Host)
	}
	_, err := ddl.NewAccountHost(*id.Host)
	return err
}

// loginID is the id attribute of an owner or grant: server/database/user,
// with "@host" when the account's host is not "%".
func loginID(ref serverRef, db, user string, host types.String) string {
	id := ref.Name + "/" + db + "/" + user
	if h, ok, _ := accountHost(host); ok && h.String() != ddl.AnyHost {
		id += "@" + h.String()
	}
	return id
}

func parseTenantImportID(raw string) (serverRef, tenantImportID, error) {
	var id tenantImportID
	if err := json.Unmarshal([]byte(raw), &id); err != nil {
		return serverRef{}, id, fmt.Errorf("not a JSON object: %v", err)
	}
	// tenantdb_db_server.main.ref is a string, so jsonencode puts a string
	// here; an object written out by hand is read the same way.
	server := []byte(id.Server)
	var encoded string
	if json.Unmarshal(id.Server, &encoded) == nil {
		server = []byte(encoded)
	}
	if len(server) == 0 {
		return serverRef{}, id, fmt.Errorf("\"server\" is missing: it is the db_server's ref")
	}
	ref, err := parseRef(server)
	if err != nil {
		return ref, id, err
	}
	return ref, id, ref.validate()
}
