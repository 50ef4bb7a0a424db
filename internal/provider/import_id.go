// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
)

// tenantImportID is the pinned import ID of tenant resources.
type tenantImportID struct {
	Server   json.RawMessage `json:"server"`
	Name     string          `json:"name"`
	Database string          `json:"database"`
	Username string          `json:"username"`
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
