// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// sameCharset compares two character sets as the server does.
func sameCharset(server types.Object, a, b string) bool {
	return strings.EqualFold(a, b)
}

// sameCollation compares two collations (PostgreSQL: locales) as the server does.
func sameCollation(server types.Object, a, b string) bool {
	return a == b || strings.EqualFold(a, b)
}
