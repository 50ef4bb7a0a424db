// SPDX-License-Identifier: MPL-2.0

package pluginserver

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// Serve serves a provider over the plugin protocol, as
// providerserver.Serve would, with releasingServer in front of the
// framework's server (newServer, e.g. providerserver.NewProtocol6(p)).
// debug serves it for debuggers (tf6server.WithManagedDebug).
func Serve(address string, newServer func() tfprotov6.ProviderServer, debug bool) error {
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	return tf6server.Serve(address, func() tfprotov6.ProviderServer {
		return ReleaseRequests(newServer())
	}, opts...)
}

// frameworkServer is every protocol interface terraform-plugin-go asks the
// framework's server for. The wrapper must offer them all, or tf6server
// would answer "unimplemented" where the framework would have answered.
//
// The three extra interfaces are deprecated (their methods are moving into
// ProviderServer) but tf6server still asks for them by name.
type frameworkServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ProviderServerWithListResource //nolint:staticcheck // SA1019: see above
	tfprotov6.ProviderServerWithActions      //nolint:staticcheck // SA1019: see above
	tfprotov6.ProviderServerWithStateStores  //nolint:staticcheck // SA1019: see above
}

// releasingServer works around the framework keeping every request's
// context until the provider stops: its protocol server registers a cancel
// function per RPC (so that StopProvider can cancel them) and never removes
// it. Each of those holds its request's whole context chain
// (terraform-plugin-go loggers and gRPC stream state), so the live heap
// grew with every resource of a plan until the process ended; the figures
// are in BENCHMARKS.md, "Where a no-op plan's time and memory go". Here
// each unary RPC gets a requestContext, released as the RPC returns, so
// what the framework keeps per request is a small struct.
//
// The RPCs of list resources, actions and state stores, which tenantdb does
// not have, pass through unwrapped: some of them stream, using the context
// after they return.
type releasingServer struct {
	frameworkServer
}

// ReleaseRequests wraps s, or returns it as it is when it lacks an
// interface of frameworkServer (a framework upgrade that changed them;
// TestReleaseRequestsWrapsTheFramework fails then).
func ReleaseRequests(s tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	fs, ok := s.(frameworkServer)
	if !ok {
		return s
	}
	return releasingServer{fs}
}

// unary runs one RPC on a requestContext released when it returns.
func unary[Req, Resp any](ctx context.Context, req Req, rpc func(context.Context, Req) (Resp, error)) (Resp, error) {
	rc := newRequestContext(ctx)
	defer rc.release()
	return rpc(rc, req)
}

func (s releasingServer) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	return unary(ctx, req, s.frameworkServer.GetMetadata)
}

func (s releasingServer) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return unary(ctx, req, s.frameworkServer.GetProviderSchema)
}

func (s releasingServer) GetResourceIdentitySchemas(ctx context.Context, req *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return unary(ctx, req, s.frameworkServer.GetResourceIdentitySchemas)
}

func (s releasingServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return unary(ctx, req, s.frameworkServer.ValidateProviderConfig)
}

func (s releasingServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return unary(ctx, req, s.frameworkServer.ConfigureProvider)
}

func (s releasingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return unary(ctx, req, s.frameworkServer.ValidateResourceConfig)
}

func (s releasingServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	return unary(ctx, req, s.frameworkServer.UpgradeResourceState)
}

func (s releasingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return unary(ctx, req, s.frameworkServer.ReadResource)
}

func (s releasingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return unary(ctx, req, s.frameworkServer.PlanResourceChange)
}

func (s releasingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return unary(ctx, req, s.frameworkServer.ApplyResourceChange)
}

func (s releasingServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	return unary(ctx, req, s.frameworkServer.ImportResourceState)
}

func (s releasingServer) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	return unary(ctx, req, s.frameworkServer.MoveResourceState)
}

func (s releasingServer) UpgradeResourceIdentity(ctx context.Context, req *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	return unary(ctx, req, s.frameworkServer.UpgradeResourceIdentity)
}

func (s releasingServer) GenerateResourceConfig(ctx context.Context, req *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	return unary(ctx, req, s.frameworkServer.GenerateResourceConfig)
}

func (s releasingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return unary(ctx, req, s.frameworkServer.ValidateDataResourceConfig)
}

func (s releasingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return unary(ctx, req, s.frameworkServer.ReadDataSource)
}

func (s releasingServer) GetFunctions(ctx context.Context, req *tfprotov6.GetFunctionsRequest) (*tfprotov6.GetFunctionsResponse, error) {
	return unary(ctx, req, s.frameworkServer.GetFunctions)
}

func (s releasingServer) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	return unary(ctx, req, s.frameworkServer.CallFunction)
}

func (s releasingServer) ValidateEphemeralResourceConfig(ctx context.Context, req *tfprotov6.ValidateEphemeralResourceConfigRequest) (*tfprotov6.ValidateEphemeralResourceConfigResponse, error) {
	return unary(ctx, req, s.frameworkServer.ValidateEphemeralResourceConfig)
}

func (s releasingServer) OpenEphemeralResource(ctx context.Context, req *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	return unary(ctx, req, s.frameworkServer.OpenEphemeralResource)
}

func (s releasingServer) RenewEphemeralResource(ctx context.Context, req *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error) {
	return unary(ctx, req, s.frameworkServer.RenewEphemeralResource)
}

func (s releasingServer) CloseEphemeralResource(ctx context.Context, req *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error) {
	return unary(ctx, req, s.frameworkServer.CloseEphemeralResource)
}
