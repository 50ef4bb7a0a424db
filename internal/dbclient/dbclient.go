// SPDX-License-Identifier: MPL-2.0

// Package dbclient is what the provider sees of the database side: the
// tenant operations (tenant.Server, reached through a Registry) and the
// types their arguments and answers are made of. It holds no code of its
// own; each name is an alias of the room that does the work:
//
//   - connect: how a server is reached and logged in to (Spec, TLS, SSH
//     bastions, SOCKS5 proxies, client certificates, cloud IAM tokens);
//   - session: how every admin statement and read runs (the admin session,
//     pinned and verified; transactions, lock waits and their blockers,
//     cancels, the offboarding notes);
//   - proof: what the server holds and whose it is (the catalog snapshot,
//     identities, marks and the ledger);
//   - tenant: the operations on tenant databases, owners and grants, each
//     checking identity before it alters or drops.
//
// The provider imports only this package (scripts/check-layers.sh): the
// session and proof layers' own methods, which run statements without the
// operations' checks, are out of its reach.
package dbclient

import (
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/tenant"
)

type (
	AuthMethod       = connect.AuthMethod
	Check            = proof.Check
	ClientCert       = connect.ClientCert
	CloudAuth        = connect.CloudAuth
	DatabaseState    = proof.DatabaseState
	DefinerKept      = proof.DefinerKept
	GrantIdentity    = tenant.GrantIdentity
	GrantRevoke      = tenant.GrantRevoke
	GrantState       = tenant.GrantState
	HalfMadeLogin    = proof.HalfMadeLogin
	Identity         = proof.Identity
	Overrun          = session.Overrun
	OwnerCandidate   = proof.OwnerCandidate
	OwnerState       = tenant.OwnerState
	Registry         = tenant.Registry
	RevokedOwn       = proof.RevokedOwn
	SOCKS5Proxy      = connect.SOCKS5Proxy
	SSHBastion       = connect.SSHBastion
	SSHBastionConfig = connect.SSHBastionConfig
	Server           = tenant.Server
	Spec             = connect.Spec
	TLSMode          = connect.TLSMode
)

const (
	AuthAWSRDSIAM      = connect.AuthAWSRDSIAM
	AuthAzureEntra     = connect.AuthAzureEntra
	AuthGCPCloudSQLIAM = connect.AuthGCPCloudSQLIAM
	AuthPassword       = connect.AuthPassword
	AzureDefaultScope  = connect.AzureDefaultScope
	LoginUnprovenWhy   = proof.LoginUnprovenWhy
	NotOurs            = tenant.NotOurs
	OtherServer        = proof.OtherServer
	Replaced           = proof.Replaced
	RevokedOnly        = tenant.RevokedOnly
	Same               = proof.Same
	TLSDisable         = connect.TLSDisable
	TLSRequire         = connect.TLSRequire
	TLSVerifyCA        = connect.TLSVerifyCA
	TLSVerifyFull      = connect.TLSVerifyFull
	Unproven           = proof.Unproven
)

var (
	AuthMethods                   = connect.AuthMethods
	ClientTLS                     = connect.ClientTLS
	Compare                       = proof.Compare
	CompareLogins                 = proof.CompareLogins
	FullGrantRead                 = tenant.FullGrantRead
	HintedVerdict                 = proof.HintedVerdict
	IsHostKeyRefusal              = connect.IsHostKeyRefusal
	IsLoginRejected               = session.IsLoginRejected
	IsUnreachable                 = session.IsUnreachable
	MismatchWhy                   = proof.MismatchWhy
	MismatchWhyFor                = proof.MismatchWhyFor
	NewClientCert                 = connect.NewClientCert
	NewRegistryWithLogger         = tenant.NewRegistryWithLogger
	NewSOCKS5Proxy                = connect.NewSOCKS5Proxy
	NewSSHBastion                 = connect.NewSSHBastion
	Offboarding                   = session.Offboarding
	Overruns                      = session.Overruns
	ParseSOCKS5URL                = connect.ParseSOCKS5URL
	PrincipalMismatchWhy          = tenant.PrincipalMismatchWhy
	SetAzureCredentialForTesting  = connect.SetAzureCredentialForTesting
	SetGCPTokenProviderForTesting = connect.SetGCPTokenProviderForTesting
	SetTokenClockForTesting       = connect.SetTokenClockForTesting
	TLSModes                      = connect.TLSModes
	WithOverruns                  = session.WithOverruns
)
