// pulumi-language-go (pulumi-kuberay offline build): a compact Go language host for the Pulumi engine.
//
// Why this exists: upstream's Go language host lives in its own Go module
// (github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3) and the Go module proxy reachable from this project's
// machines refuses every version of it (403, "This module version is not available"). Everything it needs is in
// modules the proxy does serve: the gRPC protocol (sdk/v3/proto/go), the schema loader and the Go code generator
// (pkg/v3/codegen/schema, pkg/v3/codegen/go). The program is built with the go toolchain on PATH and run as a
// plain binary; the Pulumi Go SDK (sdk/v3/go/pulumi, pulumi.Run) reads the engine's addresses, the project, the
// stack and the configuration from the environment variables this host sets (PULUMI_MONITOR, PULUMI_ENGINE, ...).
//
// What it implements: Handshake, GetPluginInfo, GetRequiredPackages / GetRequiredPlugins (the pulumi-plugin.json
// files in the modules of the program's build list), Run (go build, then the binary; runtime option `binary`
// runs a prebuilt one), InstallDependencies (go mod tidy), GeneratePackage (the Go SDK of a schema, with a go.mod:
// what `pulumi package gen-sdk --language go` and `pulumi package add` need), Link (a generated SDK becomes a
// `replace`d requirement of the program's go.mod), About and GetProgramDependencies. Not implemented
// (Unimplemented): RunPlugin (Go plugins and policy packs), program generation and conversion, Pack and the
// debugger.
//
// Built by scripts/ensure-langhosts in a wrapper module that requires pulumi's pkg/v3 at the CLI's version, with the
// package our hosts share (scripts/engine/langhost: the command line, the gRPC server, the RPC methods alike in
// every host);
// stamped with that version through -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=vX.Y.Z.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"
	"google.golang.org/grpc"
	"offline.build/langhost"
	"offline.build/langhost/sdkgen"
)

// How deep under a module's root pulumi-plugin.json files are looked for (pulumi-kubernetes keeps its file at
// sdk/v4's go/kubernetes/, a generated SDK at <module>/<package>/).
const pluginFileDepth = 3

type host struct {
	langhost.Base
}

func main() {
	// The engine runs us as: pulumi-language-go [--logtostderr] [-v=N] [--tracing URL] [--binary PATH] ENGINE_ADDRESS
	valueFlags := []string{"--binary", "-binary", "--buildTarget", "-buildTarget"}
	langhost.Serve("pulumi-language-go", valueFlags, func(engineAddress string) pulumirpc.LanguageRuntimeServer {
		h := &host{}
		h.EngineAddress = engineAddress
		h.RequiredPackages = func(ctx context.Context, info *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, error) {
			return requiredPackages(ctx, langhost.ParseInfo(info, "").ProgramDir)
		}
		return h
	})
}

// goCommand runs `go args...` in dir and returns its stdout; the error carries stderr.
func goCommand(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("go %s in %s: %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// ---- RPC methods ---------------------------------------------------------------------------------------

type goModule struct {
	Path    string `json:"Path"`
	Version string `json:"Version"`
	Dir     string `json:"Dir"`
	Main    bool   `json:"Main"`
	Replace *struct {
		Path    string `json:"Path"`
		Version string `json:"Version"`
		Dir     string `json:"Dir"`
	} `json:"Replace"`
}

// buildList is `go list -m -json all` in the program's directory: every module of its build list.
func buildList(ctx context.Context, programDir string) ([]goModule, error) {
	out, err := goCommand(ctx, programDir, "list", "-m", "-json", "all")
	if err != nil {
		return nil, err
	}
	var modules []goModule
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m goModule
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return modules, nil
		} else if err != nil {
			return nil, fmt.Errorf("parsing `go list -m -json all`: %w", err)
		}
		if m.Replace != nil && m.Replace.Dir != "" {
			m.Dir = m.Replace.Dir
		}
		modules = append(modules, m)
	}
}

// pluginFiles lists the pulumi-plugin.json files at most pluginFileDepth directories below root (a symbolic link,
// such as a replaced module's directory, is followed first: WalkDir does not descend into one).
func pluginFiles(root string) []string {
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		root = resolved
	}
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil //nolint:nilerr // an unreadable directory holds no plugin file we could use
		}
		rel, _ := filepath.Rel(root, p)
		depth := 0
		if rel != "." {
			depth = strings.Count(filepath.ToSlash(rel), "/") + 1
		}
		if d.IsDir() {
			name := d.Name()
			if depth > pluginFileDepth || (rel != "." && (strings.HasPrefix(name, ".") || name == "vendor" ||
				name == "testdata" || name == "node_modules")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "pulumi-plugin.json" {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

// requiredPackages: the Pulumi packages among the program's Go modules (a pulumi-plugin.json with "resource": true).
// Modules not in the module cache yet are downloaded first (`go mod download`: a no-op when they are there).
func requiredPackages(ctx context.Context, programDir string) ([]*pulumirpc.PackageDependency, error) {
	if _, err := os.Stat(filepath.Join(programDir, "go.mod")); err != nil {
		return nil, nil // not a module (yet): nothing to report
	}
	if _, err := goCommand(ctx, programDir, "mod", "download"); err != nil {
		return nil, err
	}
	modules, err := buildList(ctx, programDir)
	if err != nil {
		return nil, err
	}
	var deps langhost.Packages
	for _, m := range modules {
		if m.Main || m.Dir == "" || m.Path == "github.com/pulumi/pulumi/sdk/v3" || m.Path == "github.com/pulumi/pulumi/pkg/v3" {
			continue
		}
		for _, file := range pluginFiles(m.Dir) {
			data, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			var pj langhost.PluginJSON
			if json.Unmarshal(data, &pj) != nil || !pj.Resource || pj.Name == "" {
				continue
			}
			deps.Add(pj.Name, pj.Version, pj)
		}
	}
	return deps.Sorted(), nil
}

// buildProgram compiles the program's entry point (a package directory, "." by default) into a temporary binary.
func buildProgram(ctx context.Context, p langhost.ProgramInfo) (binary string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "pulumi-go-program-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	binary = filepath.Join(dir, "program")
	target := p.EntryPoint
	if target != "." && !strings.HasPrefix(target, "./") && !filepath.IsAbs(target) {
		target = "./" + target
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", binary, target)
	cmd.Dir = p.ProgramDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("unable to build the Go program in %s (go build %s): %w\n%s", p.ProgramDir, target, err,
			strings.TrimSpace(out.String()))
	}
	return binary, cleanup, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	p := langhost.ParseInfo(req.GetInfo(), req.GetPwd())
	binary := p.Option("binary") // Pulumi.yaml runtime option: a prebuilt program
	if binary != "" && !filepath.IsAbs(binary) {
		binary = filepath.Join(p.ProgramDir, binary)
	}
	if binary == "" {
		if _, err := exec.LookPath("go"); err != nil {
			return &pulumirpc.RunResponse{Error: "could not find go on the $PATH (install Go, or set the runtime option `binary` to a prebuilt program): " + err.Error()}, nil
		}
		built, cleanup, err := buildProgram(ctx, p)
		if err != nil {
			return &pulumirpc.RunResponse{Error: err.Error()}, nil
		}
		defer cleanup()
		binary = built
	}

	// Config keys as the Go SDK's config package asks: <namespace>:<name>.
	configEnv, err := langhost.ConfigEnv(req.GetConfig(), req.GetConfigSecretKeys())
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(),
		"PULUMI_MONITOR="+req.GetMonitorAddress(),
		"PULUMI_ENGINE="+h.EngineAddress,
		"PULUMI_ORGANIZATION="+req.GetOrganization(),
		"PULUMI_PROJECT="+req.GetProject(),
		"PULUMI_STACK="+req.GetStack(),
		"PULUMI_ROOT_DIRECTORY="+p.Root,
	)
	env = append(env, configEnv...)
	env = append(env,
		"PULUMI_DRY_RUN="+strconv.FormatBool(req.GetDryRun()),
		"PULUMI_PARALLEL="+strconv.Itoa(int(req.GetParallel())),
	)
	if req.GetLoaderTarget() != "" {
		env = append(env, "PULUMI_LOADER_TARGET="+req.GetLoaderTarget())
	}
	cmd := exec.CommandContext(ctx, binary, req.GetArgs()...)
	cmd.Env = env
	cmd.Dir = p.ProgramDir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return langhost.RunResult(cmd.Run(), "program exited with non-zero exit code", func(err error) string {
		return fmt.Sprintf("problem executing program %s: %v", binary, err)
	}), nil
}

func (h *host) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	p := langhost.ParseInfo(req.GetInfo(), req.GetDirectory())
	stdout, stderr := langhost.InstallStreams(server)
	if _, err := os.Stat(filepath.Join(p.ProgramDir, "go.mod")); err != nil {
		return nil // nothing to install (a directory without a go.mod)
	}
	fmt.Fprintln(stdout, "Installing dependencies (go mod tidy)...")
	cmd := exec.CommandContext(server.Context(), "go", "mod", "tidy")
	cmd.Dir = p.ProgramDir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go mod tidy in %s: %w", p.ProgramDir, err)
	}
	fmt.Fprintln(stdout, "Finished installing dependencies")
	return nil
}

// sdkModulePath is the module path of a package's Go SDK: the schema's `language.go.modulePath`, else the
// import base path's parent (the SDK's package sits one directory below the module root).
func sdkModulePath(pkg *schema.Package) (modulePath, importBasePath string, err error) {
	if err := pkg.ImportLanguages(map[string]schema.Language{"go": gogen.Importer}); err != nil {
		return "", "", err
	}
	var info gogen.GoPackageInfo
	if i, ok := pkg.Language["go"].(gogen.GoPackageInfo); ok {
		info = i
	}
	importBasePath = info.ImportBasePath
	if importBasePath == "" {
		importBasePath = gogen.ExtractImportBasePath(pkg.Reference())
	}
	modulePath = info.ModulePath
	if modulePath == "" {
		modulePath = path.Dir(importBasePath)
	}
	return modulePath, importBasePath, nil
}

// GeneratePackage writes the Go SDK of a package schema (pkg/v3/codegen/go, as upstream's host) and, where the
// generator wrote none, a go.mod that makes the output directory a module (so a program can `replace` it).
func (h *host) GeneratePackage(ctx context.Context, req *pulumirpc.GeneratePackageRequest) (*pulumirpc.GeneratePackageResponse, error) {
	if len(req.GetExtraFiles()) > 0 {
		return nil, errors.New("overlays are not supported for Go")
	}
	validation := schema.ValidationOptions{AllowDanglingReferences: true}
	return sdkgen.GeneratePackage(req, sdkgen.Options{CachedLoader: true, Validation: validation}, func(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
		files, err := gogen.GeneratePackage("pulumi-language-go", pkg, req.GetLocalDependencies())
		if err != nil {
			return nil, err
		}
		if _, ok := files["go.mod"]; !ok {
			if files["go.mod"], err = sdkGoMod(pkg, req.GetLocalDependencies()); err != nil {
				return nil, err
			}
		}
		return files, nil
	})
}

// sdkGoMod is the go.mod of a generated SDK that has none: its module path, Go 1.24 and sdk/v3 at this host's
// version (replaced by the local pulumi SDK when the request names one).
func sdkGoMod(pkg *schema.Package, localDependencies map[string]string) ([]byte, error) {
	modulePath, _, err := sdkModulePath(pkg)
	if err != nil {
		return nil, err
	}
	var gomod modfile.File
	if err := gomod.AddModuleStmt(modulePath); err != nil {
		return nil, err
	}
	if err := gomod.AddGoStmt("1.24"); err != nil {
		return nil, err
	}
	sdk := "github.com/pulumi/pulumi/sdk/v3"
	if err := gomod.AddRequire(sdk, version.Version); err != nil {
		return nil, err
	}
	if replacement, ok := localDependencies["pulumi"]; ok {
		if err := gomod.AddReplace(sdk, "", replacement, ""); err != nil {
			return nil, err
		}
	}
	return gomod.Format()
}

// Link makes each generated SDK a requirement of the program's go.mod, replaced by its directory.
func (h *host) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	p := langhost.ParseInfo(req.GetInfo(), "")
	var imports []string
	for _, dep := range req.GetPackages() {
		dir := dep.GetPath()
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(p.Root, dir)
		}
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			return nil, fmt.Errorf("linking %s: %w", dir, err)
		}
		modulePath := modfile.ModulePath(data)
		if modulePath == "" {
			return nil, fmt.Errorf("linking %s: its go.mod names no module", dir)
		}
		rel, err := filepath.Rel(p.ProgramDir, dir)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, ".") {
			rel = "./" + rel
		}
		if _, err := goCommand(ctx, p.ProgramDir, "mod", "edit", "-require="+modulePath+"@v0.0.0",
			"-replace="+modulePath+"="+rel); err != nil {
			return nil, err
		}
		for _, file := range pluginFiles(dir) {
			sub, _ := filepath.Rel(dir, filepath.Dir(file))
			imports = append(imports, path.Join(modulePath, filepath.ToSlash(sub)))
		}
	}
	var b strings.Builder
	b.WriteString("The Go SDK(s) are requirements of go.mod now, replaced by their directories. Import them, e.g.:\n\n")
	for _, imp := range imports {
		fmt.Fprintf(&b, "  import %q\n", imp)
	}
	b.WriteString("\nthen run `go mod tidy`.\n")
	return &pulumirpc.LinkResponse{ImportInstructions: b.String()}, nil
}

func (h *host) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	out, _ := exec.CommandContext(ctx, goBin, "env", "GOVERSION").Output()
	return &pulumirpc.AboutResponse{Executable: goBin, Version: strings.TrimSpace(string(out))}, nil
}

func (h *host) GetProgramDependencies(ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest) (*pulumirpc.GetProgramDependenciesResponse, error) {
	p := langhost.ParseInfo(req.GetInfo(), req.GetPwd())
	if _, err := os.Stat(filepath.Join(p.ProgramDir, "go.mod")); err != nil {
		return &pulumirpc.GetProgramDependenciesResponse{}, nil
	}
	modules, err := buildList(ctx, p.ProgramDir)
	if err != nil {
		return nil, err
	}
	var deps []*pulumirpc.DependencyInfo
	for _, m := range modules {
		if !m.Main {
			deps = append(deps, &pulumirpc.DependencyInfo{Name: m.Path, Version: m.Version})
		}
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}, nil
}
