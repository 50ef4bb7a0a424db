// SPDX-License-Identifier: MPL-2.0

package pluginserver

import (
	"os"
	"testing"
)

func TestQuietSDKLogs(t *testing.T) {
	for _, v := range []string{"TF_LOG", "TF_LOG_PATH", "TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_ACC_LOG", "TF_ACC_LOG_PATH", "TF_LOG_CORE"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	QuietSDKLogs()
	if os.Getenv("TF_LOG_SDK") != "OFF" || os.Getenv("TF_LOG_SDK_FRAMEWORK") != "OFF" {
		t.Fatal("SDK logs not silenced when no logging was asked for")
	}
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
		os.Unsetenv(v)
	}
	t.Setenv("TF_LOG", "DEBUG")
	QuietSDKLogs()
	if os.Getenv("TF_LOG_SDK") != "" {
		t.Fatal("SDK logs silenced although TF_LOG asks for logs")
	}
}
