// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	rdsauth "github.com/aws/aws-sdk-go-v2/feature/rds/auth"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// awsFetcher signs RDS IAM tokens (RDS and Aurora, MySQL, MariaDB and
// PostgreSQL) with credentials from the standard AWS chain: environment,
// shared config and credentials files (the profile, when set), web
// identity, the container and the instance role; then, when a role is
// set, that role assumed through STS. The SDK caches the credentials
// until they expire; each connection gets a token signed now (valid 15
// minutes, used at once).
type awsFetcher struct {
	auth  CloudAuth
	mu    sync.Mutex
	creds aws.CredentialsProvider // resolved once, on first use
}

func (f *awsFetcher) token(ctx context.Context, spec Spec) (string, error) {
	creds, err := f.credentials(ctx)
	if err != nil {
		return "", err
	}
	// Retrieve first, so a failure names its step (the token's own call
	// retrieves again, from the SDK's cache).
	if _, err := creds.Retrieve(ctx); err != nil {
		step := "retrieving credentials from the default chain (environment, shared config" + f.profileNote() +
			", web identity, container, instance role)"
		if f.auth.AWSRoleARN != "" {
			step = fmt.Sprintf("assuming role %s with the default chain's credentials", f.auth.AWSRoleARN)
		}
		return "", &tokenStepError{cloud: "AWS", step: step, err: err}
	}
	var tok string
	tokenClock(func() {
		// The SDK presigns the RDS connect request; nothing here signs.
		tok, err = rdsauth.BuildAuthToken(ctx, spec.Addr(), f.auth.AWSRegion, spec.Username, creds)
	})
	if err != nil {
		return "", &tokenStepError{cloud: "AWS", step: "building the RDS auth token (feature/rds/auth)", err: err}
	}
	return tok, nil
}

func (f *awsFetcher) profileNote() string {
	if f.auth.AWSProfile == "" {
		return ""
	}
	return fmt.Sprintf(" profile %q", f.auth.AWSProfile)
}

// credentials resolves the chain once per process and settings.
func (f *awsFetcher) credentials(ctx context.Context) (aws.CredentialsProvider, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.creds != nil {
		return f.creds, nil
	}
	opts := []func(*config.LoadOptions) error{config.WithRegion(f.auth.AWSRegion)}
	if f.auth.AWSProfile != "" {
		opts = append(opts, config.WithSharedConfigProfile(f.auth.AWSProfile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, &tokenStepError{cloud: "AWS", step: "loading the shared configuration" + f.profileNote(), err: err}
	}
	creds := cfg.Credentials
	if f.auth.AWSRoleARN != "" {
		creds = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), f.auth.AWSRoleARN,
			func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = "tenantdb" }))
	}
	if creds == nil {
		return nil, &tokenStepError{cloud: "AWS", step: "the default credential chain" + f.profileNote(),
			err: fmt.Errorf("no credentials found")}
	}
	f.creds = creds
	return creds, nil
}

// tokenClock runs a token's signing. Tests replace it (SetTokenClockForTesting)
// to sign at a fixed time, so the token is known in advance.
var tokenClock = func(sign func()) { sign() }
