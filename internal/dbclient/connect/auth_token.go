// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// AuthMethod is how the admin login proves itself: a stored password, or a
// short-lived token from a cloud's identity service, fetched for every new
// connection.
type AuthMethod string

const (
	AuthPassword       AuthMethod = "password"         // admin_passwords (the default)
	AuthAWSRDSIAM      AuthMethod = "aws_rds_iam"      // RDS and Aurora IAM database authentication
	AuthAzureEntra     AuthMethod = "azure_entra"      // Azure Database, Microsoft Entra ID
	AuthGCPCloudSQLIAM AuthMethod = "gcp_cloudsql_iam" // Cloud SQL IAM database authentication
)

// AuthMethods lists the accepted methods, for validators.
var AuthMethods = []string{string(AuthPassword), string(AuthAWSRDSIAM), string(AuthAzureEntra), string(AuthGCPCloudSQLIAM)}

// CloudAuth is the non-secret settings of the admin's login method (the
// db_server's auth arguments). The zero value is password login.
type CloudAuth struct {
	Method AuthMethod
	// AWS: the region the token is signed for (required), a shared-config
	// profile and a role to assume (optional).
	AWSRegion, AWSProfile, AWSRoleARN string
	// Azure: the Entra tenant (optional) and the token's scope (default
	// azureDefaultScope; a sovereign cloud names its own).
	AzureTenantID, AzureScope string
	// GCP: a service account to impersonate (optional).
	GCPImpersonate string
}

// IAM reports a token login (no stored password).
func (a CloudAuth) IAM() bool { return a.Method != "" && a.Method != AuthPassword }

// key is the settings in one string, for the pool key.
func (a CloudAuth) key() string {
	if !a.IAM() {
		return ""
	}
	return strings.Join([]string{string(a.Method), a.AWSRegion, a.AWSProfile, a.AWSRoleARN, a.AzureTenantID, a.AzureScope,
		a.GCPImpersonate}, "\x00")
}

// tokenFetcher fetches the password of one new connection. Each method's
// fetcher keeps the credential chain it resolved (credentials, not tokens,
// are what the SDKs cache, and only until they expire); the token it
// returns is used for one connection attempt and never kept.
type tokenFetcher interface {
	token(ctx context.Context, spec Spec) (string, error)
}

// tokens holds the fetcher of each token login this process uses, by
// CloudAuth.key: every pool of one server (admin, tenant databases, the
// KILL QUERY connection) shares one credential chain.
var tokens struct {
	sync.Mutex
	m map[string]tokenFetcher
}

func fetcherFor(a CloudAuth) tokenFetcher {
	tokens.Lock()
	defer tokens.Unlock()
	if f, ok := tokens.m[a.key()]; ok {
		return f
	}
	var f tokenFetcher
	switch a.Method {
	case AuthAWSRDSIAM:
		f = &awsFetcher{auth: a}
	case AuthAzureEntra:
		f = &azureFetcher{auth: a}
	case AuthGCPCloudSQLIAM:
		f = &gcpFetcher{auth: a}
	default:
		f = unknownMethod(a.Method)
	}
	if tokens.m == nil {
		tokens.m = map[string]tokenFetcher{}
	}
	tokens.m[a.key()] = f
	return f
}

type unknownMethod AuthMethod

func (m unknownMethod) token(context.Context, Spec) (string, error) {
	return "", fmt.Errorf("unknown auth method %q", string(m))
}

// LoginToken fetches a token for one new connection of spec. A failure is
// a configuration error (never retried, never a database error) naming the
// cloud and the step of its credential chain that failed; the token itself
// is in no error and no log.
func (s Spec) LoginToken(ctx context.Context) (string, error) {
	tok, err := fetcherFor(s.Auth).token(ctx, s)
	if err != nil {
		return "", &ConfigError{Kind: "token", Msg: fmt.Sprintf("server %q: %v", s.Name, err)}
	}
	if tok == "" {
		return "", &ConfigError{Kind: "token", Msg: fmt.Sprintf("server %q: %s returned an empty token", s.Name, s.Auth.Method)}
	}
	return tok, nil
}

// tokenStepError is a failure of one step of a cloud's credential chain.
type tokenStepError struct {
	cloud, step string
	err         error
}

func (e *tokenStepError) Error() string {
	return fmt.Sprintf("%s: cannot get a login token (%s): %v", e.cloud, e.step, e.err)
}

func (e *tokenStepError) Unwrap() error { return e.err }

// applyMySQLToken makes every new MySQL connection of cfg log in with a
// fresh token. The token goes as the password of go-sql-driver's
// mysql_clear_password plugin when the server asks for it (RDS's
// AWSAuthenticationPlugin, Azure's and Cloud SQL's IAM logins do), which is
// allowed only over TLS: with tls = "disable" the driver refuses to send it
// (and the provider refuses the configuration at plan time).
func (s Spec) applyMySQLToken(cfg *mysql.Config) error {
	if !s.Auth.IAM() {
		return nil
	}
	cfg.Passwd = ""
	cfg.AllowCleartextPasswords = s.TLS != TLSDisable
	return cfg.Apply(mysql.BeforeConnect(func(ctx context.Context, c *mysql.Config) error {
		tok, err := s.LoginToken(ctx)
		c.Passwd = tok
		return err
	}))
}

// PGBeforeConnect is the pgx hook that gives every new PostgreSQL
// connection a fresh token, or nil for password login.
func (s Spec) PGBeforeConnect() func(context.Context, *pgx.ConnConfig) error {
	if !s.Auth.IAM() {
		return nil
	}
	return func(ctx context.Context, c *pgx.ConnConfig) error {
		tok, err := s.LoginToken(ctx)
		c.Password = tok
		return err
	}
}
