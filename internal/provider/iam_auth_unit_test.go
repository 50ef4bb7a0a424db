// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// TestIAMAuthRef: under password login (omitted or written) the ref is the
// string earlier versions wrote, byte for byte, so no tenant plans a
// change; a cloud method and its settings follow the other fields, in a
// fixed order, and round-trip through both forms (the ref and JSON).
func TestIAMAuthRef(t *testing.T) {
	base := serverRef{Name: "main", Engine: "mysql", Host: "db", Port: 3306, Username: "adm", TLS: "require"}
	const before = `mysql://adm@db:3306/main?tls=require`
	for _, written := range []string{"", "password"} {
		r := base
		r.Auth = normalAuth(dbclient.CloudAuth{Method: dbclient.AuthMethod(written)})
		if got := r.encode(); got != before {
			t.Errorf("auth %q: %s, want the earlier ref %s", written, got, before)
		}
	}
	for _, c := range []struct {
		auth dbclient.CloudAuth
		want string
	}{
		{dbclient.CloudAuth{Method: dbclient.AuthAWSRDSIAM, AWSRegion: "eu-west-1", AWSProfile: "ops",
			AWSRoleARN: "arn:aws:iam::123456789012:role/tenantdb"},
			before + "&auth=aws_rds_iam&aws_region=eu-west-1&aws_profile=ops&aws_role_arn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Ftenantdb"},
		{dbclient.CloudAuth{Method: dbclient.AuthAzureEntra, AzureTenantID: "contoso.onmicrosoft.com"},
			before + "&auth=azure_entra&azure_tenant_id=contoso.onmicrosoft.com"},
		{dbclient.CloudAuth{Method: dbclient.AuthGCPCloudSQLIAM}, before + "&auth=gcp_cloudsql_iam"},
	} {
		r := base
		r.Auth = c.auth
		if got := r.encode(); got != c.want {
			t.Errorf("encode:\n got %s\nwant %s", got, c.want)
		}
		back, err := parseRef([]byte(r.encode()))
		if err != nil || back.Auth != c.auth || back.validate() != nil {
			t.Errorf("round trip of %s: %+v %v %v", c.want, back.Auth, err, back.validate())
		}
	}
	j, err := parseRef([]byte(`{"name":"main","engine":"mysql","host":"db","username":"adm","auth":"aws_rds_iam","aws_region":"us-east-1"}`))
	if err != nil || j.encode() != before+"&auth=aws_rds_iam&aws_region=us-east-1" {
		t.Errorf("JSON form: %v %s", err, j.encode())
	}
	if _, err := parseRef([]byte(before + "&auth_token=x")); err == nil {
		t.Error("an unknown field was accepted")
	}
}

// TestIAMAuthValidate: settings that do not go together are refused at
// plan time, saying what to write.
func TestIAMAuthValidate(t *testing.T) {
	aws := dbclient.CloudAuth{Method: dbclient.AuthAWSRDSIAM, AWSRegion: "eu-west-1"}
	for _, c := range []struct {
		auth dbclient.CloudAuth
		tls  string
		want string
	}{
		{aws, "require", ""},
		{aws, "disable", `tls = "require"`},
		{dbclient.CloudAuth{Method: dbclient.AuthGCPCloudSQLIAM}, "disable", "needs TLS"},
		{dbclient.CloudAuth{Method: dbclient.AuthAWSRDSIAM}, "require", "needs aws_region"},
		{dbclient.CloudAuth{AWSRegion: "eu-west-1"}, "require", `aws_region is a setting of auth = "aws_rds_iam", not of auth = "password"`},
		{dbclient.CloudAuth{Method: dbclient.AuthAzureEntra, AWSProfile: "x"}, "require", "aws_profile is a setting of"},
		{dbclient.CloudAuth{Method: dbclient.AuthAWSRDSIAM, AWSRegion: "eu-west-1", GCPImpersonate: "a@b.iam.gserviceaccount.com"}, "require", "gcp_impersonate_service_account is a setting"},
		{dbclient.CloudAuth{Method: dbclient.AuthAWSRDSIAM, AWSRegion: "Europe"}, "require", "not an AWS region"},
		{dbclient.CloudAuth{Method: dbclient.AuthAWSRDSIAM, AWSRegion: "eu-west-1", AWSRoleARN: "tenantdb"}, "require", "not an IAM role ARN"},
		{dbclient.CloudAuth{Method: dbclient.AuthAzureEntra, AzureScope: "https://x/"}, "require", ".default scope"},
		{dbclient.CloudAuth{Method: dbclient.AuthGCPCloudSQLIAM, GCPImpersonate: "me"}, "require", "service account e-mail"},
		{dbclient.CloudAuth{Method: "kerberos"}, "require", "auth must be one of"},
	} {
		err := validateAuth(c.auth, c.tls)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v tls %s: %v, want %q", c.auth, c.tls, err, c.want)
		}
	}
	d := &providerData{passwords: map[string]string{"rds": "x"}}
	if err := d.refuseStoredPassword("rds", aws); err == nil || !strings.Contains(err.Error(), `remove admin_passwords["rds"]`) {
		t.Errorf("an admin_passwords entry with IAM: %v", err)
	}
	t.Setenv(AdminPasswordEnv("rds2"), "x")
	if err := d.refuseStoredPassword("rds2", aws); err == nil || !strings.Contains(err.Error(), "TENANTDB_ADMIN_PASSWORD_RDS2 is set") {
		t.Errorf("the environment fallback with IAM: %v", err)
	}
	if err := d.refuseStoredPassword("rds", dbclient.CloudAuth{}); err != nil {
		t.Errorf("password login: %v", err)
	}
}
