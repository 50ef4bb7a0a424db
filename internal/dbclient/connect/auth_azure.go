// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// AzureDefaultScope is the Entra ID scope of Azure Database for PostgreSQL
// and MySQL flexible server in Azure's public cloud; a sovereign cloud
// names its own (azure_scope).
const AzureDefaultScope = "https://ossrdbms-aad.database.windows.net/.default"

// azureFetcher gets Microsoft Entra ID access tokens from azidentity's
// default chain (environment, workload identity, managed identity, Azure
// CLI, Azure Developer CLI). azidentity caches a token until shortly before
// it expires and fetches a new one after.
type azureFetcher struct {
	auth CloudAuth
	mu   sync.Mutex
	cred azcore.TokenCredential
}

// azureCredential resolves the credential chain; tests replace it
// (SetAzureCredentialForTesting) with a static token source.
var azureCredential = func(tenantID string) (azcore.TokenCredential, error) {
	return azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{TenantID: tenantID})
}

func (f *azureFetcher) token(ctx context.Context, _ Spec) (string, error) {
	f.mu.Lock()
	if f.cred == nil {
		c, err := azureCredential(f.auth.AzureTenantID)
		if err != nil {
			f.mu.Unlock()
			return "", &tokenStepError{cloud: "Azure", step: "setting up the default credential chain", err: err}
		}
		f.cred = c
	}
	cred := f.cred
	f.mu.Unlock()
	scope := f.auth.AzureScope
	if scope == "" {
		scope = AzureDefaultScope
	}
	// The error of DefaultAzureCredential lists every credential of the
	// chain it tried and why each failed.
	tok, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{scope}, TenantID: f.auth.AzureTenantID})
	if err != nil {
		return "", &tokenStepError{cloud: "Azure", step: "getting an Entra ID token for " + scope +
			" (default chain: environment, workload identity, managed identity, Azure CLI)", err: err}
	}
	return tok.Token, nil
}
