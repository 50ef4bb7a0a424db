// SPDX-License-Identifier: MPL-2.0

package pluginserver

import (
	"os"
	"strings"
)

// QuietSDKLogs turns the plugin SDK's own logging off when nobody asked for
// logs; call it first thing in main. Without a level the SDK logs every RPC
// at TRACE, JSON-encoding lines that Terraform then discards: at hundreds of
// tenants that is about a fifth of a no-op plan. Any TF_LOG* or TF_ACC_LOG*
// setting leaves everything as it is.
func QuietSDKLogs() {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG") || strings.HasPrefix(kv, "TF_ACC_LOG") {
			return
		}
	}
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
		os.Setenv(v, "OFF")
	}
}
