// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The static AWS credentials of the tests of RDS IAM login. UseTestAWSChain
// puts them where the standard chain looks first (the environment).
const (
	TestAWSAccessKeyID     = "AKIDTENANTDB"
	TestAWSSecretAccessKey = "tenantdb-test-secret-key"
)

// TokenEpoch is when a testing/synctest bubble's clock starts: a token
// signed inside one is signed at this time.
var TokenEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// UseTestAWSChain makes the AWS default credential chain find exactly the
// test's static credentials (withKeys) or none: no shared files, no
// profile, no web identity, no container or instance metadata.
func UseTestAWSChain(t testing.TB, withKeys bool) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, v := range []string{"AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
		t.Setenv(v, "")
	}
	id, secret := "", ""
	if withKeys {
		id, secret = TestAWSAccessKeyID, TestAWSSecretAccessKey
	}
	t.Setenv("AWS_ACCESS_KEY_ID", id)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
}

// PresignedRDSToken is the AWS SDK's own presigning (signer v4) of an RDS
// IAM connect request for host, port, region and user with the test's
// static credentials, valid 900 s from signedAt: what a token for those
// inputs must be. Tests compare the provider's tokens with it.
func PresignedRDSToken(ctx context.Context, host string, port int, region, user string, signedAt time.Time) (string, error) {
	q := url.Values{"Action": {"connect"}, "DBUser": {user}, "X-Amz-Expires": {"900"}}
	u := url.URL{Scheme: "https", Host: net.JoinHostPort(host, strconv.Itoa(port)), RawQuery: q.Encode()}
	req, err := http.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	const emptyPayload = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	signed, _, err := v4.NewSigner().PresignHTTP(ctx, aws.Credentials{AccessKeyID: TestAWSAccessKeyID,
		SecretAccessKey: TestAWSSecretAccessKey}, req, emptyPayload, "rds-db", region, signedAt)
	if err != nil {
		return "", err
	}
	return signed[len("https://"):], nil
}
