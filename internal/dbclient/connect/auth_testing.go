// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"cloud.google.com/go/auth"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// Test seams of the token logins. The provider's acceptance tests run the
// provider in the test process, so they set these from another package;
// production code never calls them.

// SetTokenClockForTesting makes every AWS token be signed inside run (a
// test runs it in a testing/synctest bubble, whose clock stands at
// 2000-01-01T00:00:00Z, so the token is known in advance). It returns the
// function that restores the real clock.
func SetTokenClockForTesting(run func(sign func())) (restore func()) {
	old := tokenClock
	tokenClock = run
	ResetFetchers()
	return func() { tokenClock = old; ResetFetchers() }
}

// ResetFetchers forgets the credential chains resolved so far, so a test's
// environment is read again.
func ResetFetchers() {
	tokens.Lock()
	tokens.m = nil
	tokens.Unlock()
}

// SetAzureCredentialForTesting replaces azidentity's default chain with
// cred (a test's static token source). It returns the restore function.
func SetAzureCredentialForTesting(cred func(tenantID string) (azcore.TokenCredential, error)) (restore func()) {
	old := azureCredential
	azureCredential = cred
	ResetFetchers()
	return func() { azureCredential = old; ResetFetchers() }
}

// SetGCPTokenProviderForTesting replaces Google's application default
// credentials (and the impersonation) with p (a test's static token
// source). It returns the restore function.
func SetGCPTokenProviderForTesting(p func(impersonate string) (auth.TokenProvider, error)) (restore func()) {
	old := gcpTokenProvider
	gcpTokenProvider = func(sa string) (auth.TokenProvider, string, error) {
		tp, err := p(sa)
		return tp, "the test's token source", err
	}
	ResetFetchers()
	return func() { gcpTokenProvider = old; ResetFetchers() }
}
