// Package sdkgen is GeneratePackage as the go and nodejs hosts share it: bind the request's schema, hand the
// package to the language's generator and write its files. A package of its own, apart from langhost, because it
// needs pulumi's pkg/v3 (the code generators' schema), which the Python host does not link.
package sdkgen

import (
	"encoding/json"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/pkg/v3/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"offline.build/langhost"
)

// Options: how the schema is bound.
type Options struct {
	// CachedLoader binds through a cache of the engine's loader (schema.NewCachedLoader).
	CachedLoader bool
	Validation   schema.ValidationOptions
}

// Generator makes the SDK's files (relative names) of a bound package; loader is the engine's.
type Generator func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error)

// GeneratePackage binds the request's schema with the engine's loader, then writes what generate makes of it
// under the request's directory. A schema with errors answers its diagnostics and writes nothing.
func GeneratePackage(req *pulumirpc.GeneratePackageRequest, opts Options, generate Generator) (*pulumirpc.GeneratePackageResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer loader.Close()
	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.GetSchema()), &spec); err != nil {
		return nil, err
	}
	var bindWith schema.ReferenceLoader = loader
	if opts.CachedLoader {
		bindWith = schema.NewCachedLoader(loader)
	}
	pkg, diags, err := schema.BindSpec(spec, bindWith, opts.Validation)
	if err != nil {
		return nil, err
	}
	rpcDiags := plugin.HclDiagnosticsToRPCDiagnostics(diags)
	if diags.HasErrors() {
		return &pulumirpc.GeneratePackageResponse{Diagnostics: rpcDiags}, nil
	}
	files, err := generate(pkg, loader)
	if err != nil {
		return nil, err
	}
	if err := langhost.WriteFiles(req.GetDirectory(), files); err != nil {
		return nil, err
	}
	return &pulumirpc.GeneratePackageResponse{Diagnostics: rpcDiags}, nil
}
