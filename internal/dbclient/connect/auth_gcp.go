// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"fmt"
	"sync"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/credentials/impersonate"
)

// gcpSQLLoginScope is the OAuth2 scope of Cloud SQL IAM database
// authentication (the one Google's Cloud SQL connectors ask for).
const gcpSQLLoginScope = "https://www.googleapis.com/auth/sqlservice.login"

// gcpFetcher gets OAuth2 access tokens for Cloud SQL IAM database
// authentication (PostgreSQL and MySQL) from Google's application default
// credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's user credentials,
// workload identity federation, the metadata server), optionally
// impersonating a service account with them. Google's library caches a
// token until shortly before it expires and fetches a new one after.
type gcpFetcher struct {
	auth     CloudAuth
	mu       sync.Mutex
	provider auth.TokenProvider
}

// gcpTokenProvider resolves the credential chain; tests replace it
// (SetGCPTokenProviderForTesting) with a static token source.
var gcpTokenProvider = func(impersonateSA string) (auth.TokenProvider, string, error) {
	if impersonateSA == "" {
		c, err := credentials.DetectDefault(&credentials.DetectOptions{Scopes: []string{gcpSQLLoginScope}})
		return c, "finding application default credentials", err
	}
	c, err := impersonate.NewCredentials(&impersonate.CredentialsOptions{TargetPrincipal: impersonateSA,
		Scopes: []string{gcpSQLLoginScope}})
	return c, fmt.Sprintf("impersonating service account %s with the application default credentials", impersonateSA), err
}

func (f *gcpFetcher) token(ctx context.Context, _ Spec) (string, error) {
	step := "application default credentials"
	if f.auth.GCPImpersonate != "" {
		step = fmt.Sprintf("impersonating service account %s with the application default credentials", f.auth.GCPImpersonate)
	}
	f.mu.Lock()
	if f.provider == nil {
		p, resolving, err := gcpTokenProvider(f.auth.GCPImpersonate)
		if err != nil {
			f.mu.Unlock()
			return "", &tokenStepError{cloud: "Google Cloud", step: resolving, err: err}
		}
		f.provider = p
	}
	p := f.provider
	f.mu.Unlock()
	tok, err := p.Token(ctx)
	if err != nil {
		return "", &tokenStepError{cloud: "Google Cloud", step: "getting an access token (" + step + ")", err: err}
	}
	return tok.Value, nil
}
