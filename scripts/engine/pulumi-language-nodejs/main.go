// pulumi-language-nodejs (pulumi-kuberay offline build): a compact Node.js language host for the Pulumi engine.
//
// Why this exists: upstream's language host lives in its own Go module
// (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3) and the Go module proxy reachable from this
// project's machines refuses every version of it (403, "This module version is not available"). Everything it
// needs is in modules the proxy does serve: the gRPC protocol (sdk/v3/proto/go), the schema loader and the
// TypeScript code generator (pkg/v3/codegen/schema, pkg/v3/codegen/nodejs). The program itself runs in Node.js
// through @pulumi/pulumi's own entry point (`@pulumi/pulumi/cmd/run`, from the program's node_modules, which
// compiles TypeScript), as upstream's host does.
//
// What it implements: Handshake, GetPluginInfo, GetRequiredPackages / GetRequiredPlugins (the package.json files
// with a "pulumi" section under the program's node_modules), Run (node + @pulumi/pulumi/cmd/run, config in
// PULUMI_CONFIG), InstallDependencies (npm install), GeneratePackage (the TypeScript SDK of a schema: what
// `pulumi package add` / `gen-sdk --language nodejs` need), Link (a generated SDK becomes a file: dependency),
// About and GetProgramDependencies. Not implemented (Unimplemented): RunPlugin (Node.js plugins and policy
// packs), program generation and conversion, Pack, the synchronous-invoke pipes (deprecated `--sync`) and the
// debugger.
//
// Built by scripts/ensure-langhosts in a wrapper module that requires pulumi's pkg/v3 at the CLI's version, with the
// package our hosts share (scripts/engine/langhost: the command line, the gRPC server, the RPC methods alike in
// every host);
// stamped with that version through -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=vX.Y.Z.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"offline.build/langhost"
	"offline.build/langhost/sdkgen"
)

type host struct {
	langhost.Base
}

func main() {
	// The engine runs us as: pulumi-language-nodejs [--logtostderr] [-v=N] [--tracing URL] ENGINE_ADDRESS
	langhost.Serve("pulumi-language-nodejs", nil, func(engineAddress string) pulumirpc.LanguageRuntimeServer {
		h := &host{}
		h.EngineAddress = engineAddress
		h.RequiredPackages = func(_ context.Context, info *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, error) {
			return scanPackages(langhost.ParseInfo(info, "").ProgramDir)
		}
		return h
	})
}

// typescript: upstream's default is true (ts-node inside @pulumi/pulumi compiles the program).
func typescript(p langhost.ProgramInfo) bool {
	if v, ok := p.Options["typescript"].(bool); ok {
		return v
	}
	return true
}

// ---- RPC methods ---------------------------------------------------------------------------------------

type packageJSON struct {
	Name    string               `json:"name"`
	Version string               `json:"version"`
	Pulumi  *langhost.PluginJSON `json:"pulumi"`
}

// scanPackages finds the Pulumi packages among the program's npm dependencies: every package.json under
// node_modules (scoped packages included, symlinked file: dependencies followed) with "pulumi.resource": true.
func scanPackages(programDir string) ([]*pulumirpc.PackageDependency, error) {
	var deps langhost.Packages
	var visit func(dir string, depth int) error
	visit = func(dir string, depth int) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			path := filepath.Join(dir, name)
			if strings.HasPrefix(name, "@") && depth == 0 {
				if err := visit(path, depth); err != nil { // a scope: its packages are one level down
					return err
				}
				continue
			}
			data, err := os.ReadFile(filepath.Join(path, "package.json"))
			if err != nil {
				continue
			}
			var pj packageJSON
			if json.Unmarshal(data, &pj) != nil {
				continue
			}
			if pj.Pulumi != nil && pj.Pulumi.Resource {
				name := pj.Pulumi.Name
				if name == "" {
					name = strings.TrimPrefix(strings.TrimPrefix(pj.Name, "@pulumi/"), "@")
				}
				v := pj.Pulumi.Version
				if v == "" {
					v = pj.Version
				}
				deps.Add(name, v, *pj.Pulumi)
			}
			if depth < 4 { // nested node_modules (npm keeps conflicting versions there)
				if err := visit(filepath.Join(path, "node_modules"), depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := visit(filepath.Join(programDir, "node_modules"), 0); err != nil {
		return nil, err
	}
	return deps.Sorted(), nil
}

// locateModule resolves a module (e.g. @pulumi/pulumi/cmd/run) from the program directory, as Node would.
func locateModule(ctx context.Context, module, programDir string) (string, error) {
	script := fmt.Sprintf("console.log(require.resolve(%q, {paths: [%q]}))", module, programDir)
	cmd := exec.CommandContext(ctx, "node", "-e", script)
	cmd.Dir = programDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("it looks like the Pulumi SDK has not been installed: cannot resolve %s from %s "+
			"(run npm install there): %v %s", module, programDir, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	p := langhost.ParseInfo(req.GetInfo(), req.GetPwd())
	if _, err := exec.LookPath("node"); err != nil {
		return &pulumirpc.RunResponse{Error: "could not find node on the $PATH: " + err.Error()}, nil
	}
	runPath := os.Getenv("PULUMI_LANGUAGE_NODEJS_RUN_PATH")
	if runPath == "" {
		runPath = "@pulumi/pulumi/cmd/run"
	}
	runPath, err := locateModule(ctx, runPath, p.ProgramDir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	args := []string{runPath}
	add := func(k, v string) {
		if v != "" {
			args = append(args, "--"+k, v)
		}
	}
	add("monitor", req.GetMonitorAddress())
	add("engine", h.EngineAddress)
	add("organization", req.GetOrganization())
	add("project", req.GetProject())
	add("root-directory", p.Root)
	add("stack", req.GetStack())
	add("pwd", p.ProgramDir)
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	add("parallel", fmt.Sprintf("%d", req.GetParallel()))
	args = append(args, p.EntryPoint)
	args = append(args, req.GetArgs()...)

	// Config keys as <namespace>:config:<name>, as upstream's host sends them (the SDK reads both forms).
	configMap := map[string]string{}
	for k, v := range req.GetConfig() {
		key, err := config.ParseKey(k)
		if err != nil {
			return nil, err
		}
		configMap[key.Namespace()+":config:"+key.Name()] = v
	}
	configEnv, err := langhost.ConfigEnv(configMap, req.GetConfigSecretKeys())
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(), configEnv...)
	if typescript(p) {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if ts := p.Option("tsconfig"); ts != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+ts)
	}
	if req.GetLoaderTarget() != "" {
		env = append(env, "PULUMI_LOADER_TARGET="+req.GetLoaderTarget())
	}
	nodeArgs := strings.Fields(p.Option("nodeargs"))
	cmd := exec.CommandContext(ctx, "node", append(nodeArgs, args...)...)
	cmd.Env = env
	cmd.Dir = p.ProgramDir
	// Node may switch its stdio to non-blocking mode: never hand it our own file descriptors.
	cmd.Stdout = struct{ io.Writer }{os.Stdout}
	cmd.Stderr = struct{ io.Writer }{os.Stderr}
	return langhost.RunResult(cmd.Run(), "Program exited with non-zero exit code", func(err error) string {
		return fmt.Sprintf("Problem executing program (could not run language executor): %v", err)
	}), nil
}

func (h *host) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	p := langhost.ParseInfo(req.GetInfo(), req.GetDirectory())
	stdout, stderr := langhost.InstallStreams(server)
	if _, err := os.Stat(filepath.Join(p.ProgramDir, "package.json")); err != nil {
		return nil // nothing to install (e.g. a directory without a package.json)
	}
	fmt.Fprintln(stdout, "Installing dependencies...")
	cmd := exec.CommandContext(server.Context(), "npm", "install", "--no-audit", "--no-fund")
	cmd.Dir = p.ProgramDir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm install in %s: %w", p.ProgramDir, err)
	}
	fmt.Fprintln(stdout, "Finished installing dependencies")
	return nil
}

// GeneratePackage writes the TypeScript SDK of a package schema (pkg/v3/codegen/nodejs, as upstream's host).
func (h *host) GeneratePackage(ctx context.Context, req *pulumirpc.GeneratePackageRequest) (*pulumirpc.GeneratePackageResponse, error) {
	return sdkgen.GeneratePackage(req, sdkgen.Options{}, func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
		return nodejs.GeneratePackage("pulumi-language-nodejs", pkg, req.GetExtraFiles(), req.GetLocalDependencies(), req.GetLocal(), loader)
	})
}

// Link makes each generated SDK a file: dependency of the program (npm install <dir>, which also builds it).
func (h *host) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	p := langhost.ParseInfo(req.GetInfo(), "")
	var names []string
	for _, dep := range req.GetPackages() {
		path := dep.GetPath()
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.Root, path)
		}
		rel, err := filepath.Rel(p.ProgramDir, path)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(filepath.Join(path, "package.json"))
		if err != nil {
			return nil, fmt.Errorf("linking %s: %w", path, err)
		}
		var pj packageJSON
		if err := json.Unmarshal(data, &pj); err != nil {
			return nil, fmt.Errorf("linking %s: %w", path, err)
		}
		// The SDK compiles itself in its postinstall script (tsc); npm 11 runs install scripts only for the
		// packages package.json's allowScripts names.
		for _, args := range [][]string{
			{"pkg", "set", "dependencies." + pj.Name + "=file:" + filepath.ToSlash(rel)},
			{"pkg", "set", "allowScripts." + pj.Name + "=true", "--json"},
		} {
			cmd := exec.CommandContext(ctx, "npm", args...)
			cmd.Dir = p.ProgramDir
			if out, err := cmd.CombinedOutput(); err != nil {
				return nil, fmt.Errorf("npm %s in %s: %w: %s", strings.Join(args, " "), p.ProgramDir, err, out)
			}
		}
		names = append(names, pj.Name)
	}
	msg := "The TypeScript SDK(s) " + strings.Join(names, ", ") + " are dependencies of package.json now (file:).\n" +
		"Import them in the program, e.g.:\n\n  import * as kuberay from \"" + strings.Join(names, "") + "\";\n"
	return &pulumirpc.LinkResponse{ImportInstructions: msg}, nil
}

func (h *host) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, err
	}
	out, _ := exec.CommandContext(ctx, node, "--version").Output()
	return &pulumirpc.AboutResponse{Executable: node, Version: strings.TrimSpace(string(out)), Metadata: map[string]string{"packagemanager": "npm"}}, nil
}

func (h *host) GetProgramDependencies(ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest) (*pulumirpc.GetProgramDependenciesResponse, error) {
	p := langhost.ParseInfo(req.GetInfo(), req.GetPwd())
	data, err := os.ReadFile(filepath.Join(p.ProgramDir, "package.json"))
	if err != nil {
		return &pulumirpc.GetProgramDependenciesResponse{}, nil
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		return nil, err
	}
	var deps []*pulumirpc.DependencyInfo
	for name := range pj.Dependencies {
		installed, err := os.ReadFile(filepath.Join(p.ProgramDir, "node_modules", name, "package.json"))
		version := ""
		if err == nil {
			var ipj packageJSON
			if json.Unmarshal(installed, &ipj) == nil {
				version = ipj.Version
			}
		}
		deps = append(deps, &pulumirpc.DependencyInfo{Name: name, Version: version})
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i].Name < deps[j].Name })
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}, nil
}
