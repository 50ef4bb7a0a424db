// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"cloud.google.com/go/auth"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// useTestAWSEnvironment: the AWS chain finds the test's static keys (or
// none), read afresh.
func useTestAWSEnvironment(t *testing.T, withKeys bool) {
	testserver.UseTestAWSChain(t, withKeys)
	connect.ResetFetchers()
	t.Cleanup(connect.ResetFetchers)
}

// sdkPresigned is the SDK's own presigning for the same inputs at signedAt.
func sdkPresigned(t *testing.T, host string, port int, region, user string, signedAt time.Time) string {
	t.Helper()
	tok, err := testserver.PresignedRDSToken(t.Context(), host, port, region, user, signedAt)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func awsSpec(host string, port int, user string) connect.Spec {
	return connect.Spec{Name: "rds", Engine: ddl.EnginePostgres, Host: host, Port: port, Username: user, TLS: connect.TLSRequire,
		Auth: connect.CloudAuth{Method: connect.AuthAWSRDSIAM, AWSRegion: "eu-west-1"}}
}

// TestRDSToken: the token of a connection is the SDK's presigned RDS
// connect URL for the server's host, port, region and admin user, valid
// 900 s, signed when the connection opens (a later connection gets a later
// one: nothing is cached past expiry). Inside a synctest bubble the clock
// stands still at 2000-01-01T00:00:00Z, so both tokens are known exactly.
func TestRDSToken(t *testing.T) {
	useTestAWSEnvironment(t, true)
	for _, c := range []struct {
		host string
		port int
		user string
	}{{"db.cluster-abc.eu-west-1.rds.amazonaws.com", 5432, "tenantdb_admin"}, {"::1", 3306, "adm"}, {"127.0.0.1", 33061, "a.b-c"}} {
		synctest.Test(t, func(t *testing.T) {
			spec := awsSpec(c.host, c.port, c.user)
			start := time.Now()
			first, err := spec.LoginToken(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if want := sdkPresigned(t, c.host, c.port, "eu-west-1", c.user, start); first != want {
				t.Fatalf("token\n%s\nwant the SDK's presigned\n%s", first, want)
			}
			for _, part := range []string{"Action=connect", "DBUser=" + url.QueryEscape(c.user), "X-Amz-Expires=900",
				"%2Feu-west-1%2Frds-db%2Faws4_request", "X-Amz-Date=20000101T000000Z"} {
				if !strings.Contains(first, part) {
					t.Errorf("token %s lacks %s", first, part)
				}
			}
			time.Sleep(16 * time.Minute) // the bubble's clock: instant
			second, err := spec.LoginToken(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if want := sdkPresigned(t, c.host, c.port, "eu-west-1", c.user, start.Add(16*time.Minute)); second != want {
				t.Fatalf("a connection 16 minutes later got\n%s\nwant a fresh token\n%s", second, want)
			}
		})
	}
}

// TestRDSToken_realClock: outside any bubble the token is the SDK's
// presigning at the time it carries, and that time is now.
func TestRDSToken_realClock(t *testing.T) {
	useTestAWSEnvironment(t, true)
	before := time.Now().UTC().Truncate(time.Second)
	tok, err := awsSpec("127.0.0.1", 5432, "adm").LoginToken(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse("https://" + tok)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse("20060102T150405Z", u.Query().Get("X-Amz-Date"))
	if err != nil || at.Before(before) || at.After(time.Now()) {
		t.Fatalf("signed at %v (%v), want between %v and now", at, err, before)
	}
	if want := sdkPresigned(t, "127.0.0.1", 5432, "eu-west-1", "adm", at); tok != want {
		t.Fatalf("token\n%s\nwant\n%s", tok, want)
	}
}

// TestTokenFailures: a token that cannot be had is a configuration error
// (never retried, never a database error) naming the cloud and the step of
// its credential chain, with no secret in it.
func TestTokenFailures(t *testing.T) {
	useTestAWSEnvironment(t, false)
	t.Cleanup(connect.SetAzureCredentialForTesting(func(string) (azcore.TokenCredential, error) {
		return staticAzure{err: errors.New("EnvironmentCredential: missing AZURE_TENANT_ID; ManagedIdentityCredential: no endpoint")}, nil
	}))
	t.Cleanup(connect.SetGCPTokenProviderForTesting(func(string) (auth.TokenProvider, error) {
		return nil, errors.New("credentials: could not find default credentials")
	}))
	for _, c := range []struct {
		auth connect.CloudAuth
		want []string
	}{
		{connect.CloudAuth{Method: connect.AuthAWSRDSIAM, AWSRegion: "eu-west-1"}, []string{"AWS", "retrieving credentials from the default chain"}},
		{connect.CloudAuth{Method: connect.AuthAWSRDSIAM, AWSRegion: "eu-west-1", AWSProfile: "nope"}, []string{"AWS", `profile "nope"`}},
		{connect.CloudAuth{Method: connect.AuthAzureEntra}, []string{"Azure", "getting an Entra ID token for " + connect.AzureDefaultScope, "ManagedIdentityCredential"}},
		{connect.CloudAuth{Method: connect.AuthGCPCloudSQLIAM}, []string{"Google Cloud", "could not find default credentials"}},
	} {
		spec := connect.Spec{Name: "cloud", Engine: ddl.EngineMySQL, Host: "db", Port: 3306, Username: "adm", TLS: connect.TLSRequire, Auth: c.auth}
		_, err := spec.LoginToken(t.Context())
		if err == nil {
			t.Fatalf("%+v: a token without credentials", c.auth)
		}
		t.Log(err)
		if Classify(err) != connect.ClassConfiguration || connect.IsServerError(err) {
			t.Errorf("%+v: %v is not a configuration error", c.auth, err)
		}
		for _, w := range append(c.want, `server "cloud"`) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %q does not say %q", c.auth, err, w)
			}
		}
	}
}

type staticAzure struct {
	token string
	err   error
	asked *[]policy.TokenRequestOptions
}

func (s staticAzure) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	if s.asked != nil {
		*s.asked = append(*s.asked, o)
	}
	return azcore.AccessToken{Token: s.token, ExpiresOn: time.Now().Add(time.Hour)}, s.err
}

// TestAzureAndGCPTokens: the scope (default or sovereign) and tenant go to
// azidentity; the token is the credential's; Google's token is the token
// source's.
func TestAzureAndGCPTokens(t *testing.T) {
	var asked []policy.TokenRequestOptions
	t.Cleanup(connect.SetAzureCredentialForTesting(func(tenant string) (azcore.TokenCredential, error) {
		return staticAzure{token: "entra-" + tenant, asked: &asked}, nil
	}))
	spec := connect.Spec{Name: "az", Host: "x", Port: 5432, Username: "adm", Auth: connect.CloudAuth{Method: connect.AuthAzureEntra, AzureTenantID: "t1"}}
	if tok, err := spec.LoginToken(t.Context()); err != nil || tok != "entra-t1" {
		t.Fatalf("%q %v", tok, err)
	}
	spec.Auth.AzureScope = "https://ossrdbms-aad.database.chinacloudapi.cn/.default"
	if _, err := spec.LoginToken(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[0].Scopes[0] != connect.AzureDefaultScope || asked[0].TenantID != "t1" || asked[1].Scopes[0] != spec.Auth.AzureScope {
		t.Fatalf("azidentity was asked %+v", asked)
	}
	var impersonated []string
	t.Cleanup(connect.SetGCPTokenProviderForTesting(func(sa string) (auth.TokenProvider, error) {
		impersonated = append(impersonated, sa)
		return staticGCP("ya29.test"), nil
	}))
	spec.Auth = connect.CloudAuth{Method: connect.AuthGCPCloudSQLIAM, GCPImpersonate: "tenantdb@p.iam.gserviceaccount.com"}
	for range 2 {
		if tok, err := spec.LoginToken(t.Context()); err != nil || tok != "ya29.test" {
			t.Fatalf("%q %v", tok, err)
		}
	}
	if len(impersonated) != 1 || impersonated[0] != spec.Auth.GCPImpersonate {
		t.Fatalf("credentials resolved %v, want once, impersonating", impersonated)
	}
}

type staticGCP string

func (s staticGCP) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: string(s), Expiry: time.Now().Add(time.Hour)}, nil
}

// TestTokenLoginConfig: with a token login the driver configuration holds
// no password, and MySQL's cleartext plugin is allowed only over TLS.
func TestTokenLoginConfig(t *testing.T) {
	for _, mode := range []connect.TLSMode{connect.TLSDisable, connect.TLSRequire, connect.TLSVerifyFull} {
		spec := connect.Spec{Name: "m", Engine: ddl.EngineMySQL, Host: "127.0.0.1", Port: 3306, Username: "adm", TLS: mode,
			Auth: connect.CloudAuth{Method: connect.AuthAWSRDSIAM, AWSRegion: "eu-west-1"}}
		cfg, err := spec.MySQLConfig("")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Passwd != "" || cfg.AllowCleartextPasswords != (mode != connect.TLSDisable) {
			t.Errorf("tls %s: password %q, cleartext allowed %v", mode, cfg.Passwd, cfg.AllowCleartextPasswords)
		}
		spec.Auth = connect.CloudAuth{}
		if cfg, _ = spec.MySQLConfig(""); cfg.AllowCleartextPasswords {
			t.Errorf("tls %s: the cleartext plugin is allowed for a password login", mode)
		}
		if spec.PGBeforeConnect() != nil {
			t.Errorf("a password login fetches tokens")
		}
	}
	a := connect.Spec{Auth: connect.CloudAuth{Method: connect.AuthAWSRDSIAM, AWSRegion: "eu-west-1"}}
	b := a
	b.Auth.AWSRoleARN = "arn:aws:iam::123456789012:role/x"
	if a.PoolKey() == b.PoolKey() || a.PoolKey() == (connect.Spec{}).PoolKey() {
		t.Error("the pool key ignores the auth settings")
	}
}

// BenchmarkRDSToken: what a new connection pays for its token (local
// signing with cached credentials; no network round trip).
func BenchmarkRDSToken(b *testing.B) {
	testserver.UseTestAWSChain(b, true)
	b.Cleanup(connect.ResetFetchers)
	spec := awsSpec("db.cluster-abc.eu-west-1.rds.amazonaws.com", 5432, "tenantdb_admin")
	for b.Loop() {
		if _, err := spec.LoginToken(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
