// SPDX-License-Identifier: MPL-2.0

package tenant
