// pulumi-language-python (pulumi-kuberay offline build): a compact Python language host for the Pulumi engine.
//
// Why this exists: upstream's language host lives in its own, untagged Go module
// (github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3) and the Go module proxy reachable
// from this project's machines does not serve any version of it. Everything it needs is in modules the
// proxy does serve: the gRPC protocol (sdk/v3/proto/go), the Python toolchain handling (pip/uv/poetry,
// virtualenvs: sdk/v3/python/toolchain) and the `pulumi-language-python-exec` launcher script
// (shipped in the sdk/v3 module zip and copied next to this binary by scripts/ensure-pulumi).
//
// What it implements: Handshake, GetPluginInfo, GetRequiredPackages / GetRequiredPlugins (from the
// pulumi-plugin.json files installed in the program's Python environment), Run (through
// pulumi-language-python-exec), RunPlugin (Python policy packs via `python -m pulumi.policy`, Python
// plugins via `python <dir>`), InstallDependencies, About and GetProgramDependencies. Code generation
// (GenerateProject/Package/Program, Pack, Link, Template, RuntimeOptionsPrompts) answers Unimplemented.
//
// Built by scripts/ensure-pulumi inside the CLI wrapper module, with the package our hosts share
// (scripts/engine/langhost: the command line, the gRPC server, the RPC methods alike in every host); stamped with
// the CLI version through
// -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=vX.Y.Z.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/grpc"
	"offline.build/langhost"
)

const name = "pulumi-language-python"

type host struct {
	langhost.Base
	execPath string
}

func main() {
	// The engine runs us as: pulumi-language-python [--logtostderr] [-v=N] [--tracing URL] ENGINE_ADDRESS
	langhost.Serve(name, nil, func(engineAddress string) pulumirpc.LanguageRuntimeServer {
		self, err := os.Executable()
		if err == nil {
			self, err = filepath.EvalSymlinks(self)
		}
		if err != nil {
			langhost.Fatalf(name, "cannot locate own executable: %v", err)
		}
		execPath := filepath.Join(filepath.Dir(self), "pulumi-language-python-exec")
		if _, err := os.Stat(execPath); err != nil {
			langhost.Fatalf(name, "missing executor %s: %v", execPath, err)
		}
		h := &host{execPath: execPath}
		h.EngineAddress = engineAddress
		h.RequiredPackages = h.scanPackages
		return h
	})
}

// ---- program info and toolchain ---------------------------------------------------------------------

// programInfo is the shared ProgramInfo with this host's toolchain (the runtime options toolchain and virtualenv).
type programInfo struct{ langhost.ProgramInfo }

func parseInfo(info *pulumirpc.ProgramInfo, fallbackDir string) programInfo {
	return programInfo{langhost.ParseInfo(info, fallbackDir)}
}

func (p programInfo) toolchain() (toolchain.Toolchain, error) {
	opts := toolchain.PythonOptions{Root: p.Root, ProgramDir: p.ProgramDir, Virtualenv: p.Option("virtualenv")}
	switch strings.ToLower(p.Option("toolchain")) {
	case "", "auto":
		opts.Toolchain = toolchain.Auto
	case "pip":
		opts.Toolchain = toolchain.Pip
	case "uv":
		opts.Toolchain = toolchain.Uv
	case "poetry":
		opts.Toolchain = toolchain.Poetry
	default:
		return nil, fmt.Errorf("unsupported Python toolchain %q", p.Option("toolchain"))
	}
	return toolchain.ResolveToolchain(opts)
}

// validated returns the toolchain after checking its virtual environment (when one is configured).
func (p programInfo) validated(ctx context.Context) (toolchain.Toolchain, error) {
	tc, err := p.toolchain()
	if err != nil {
		return nil, err
	}
	if p.Option("virtualenv") != "" {
		if err := tc.ValidateVenv(ctx); err != nil {
			return nil, err
		}
	}
	return tc, nil
}

// ---- RPC methods ------------------------------------------------------------------------------------

// Handshake: this host keeps the engine address it was started with (the command line's).
func (h *host) Handshake(context.Context, *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

// pluginScan lists every pulumi-plugin.json installed in the Python environment (one JSON object per line).
const pluginScan = `
import json, importlib.metadata as md
seen = set()
for d in md.distributions():
    for f in d.files or []:
        if f.name != "pulumi-plugin.json":
            continue
        p = str(d.locate_file(f))
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(p) as fh:
                data = json.load(fh)
        except Exception:
            continue
        data["_dist"] = d.metadata["Name"]
        print(json.dumps(data))
`

func (h *host) scanPackages(ctx context.Context, info *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, error) {
	p := parseInfo(info, "")
	tc, err := p.validated(ctx)
	if err != nil {
		return nil, err
	}
	cmd, err := tc.Command(ctx, "-c", pluginScan)
	if err != nil {
		return nil, err
	}
	cmd.Dir = p.ProgramDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing Pulumi plugins of the Python environment: %w: %s", err, stderr.String())
	}
	var deps langhost.Packages
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var pj langhost.PluginJSON
		if err := json.Unmarshal([]byte(line), &pj); err != nil || !pj.Resource || pj.Name == "" {
			continue
		}
		deps.Add(pj.Name, pj.Version, pj)
	}
	return deps.List(), nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	p := parseInfo(req.GetInfo(), req.GetPwd())
	tc, err := p.validated(ctx)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	program := req.GetProgram()
	if program == "" {
		program = p.EntryPoint
	}
	if !filepath.IsAbs(program) {
		program = filepath.Join(p.ProgramDir, program)
	}
	pwd := req.GetPwd()
	if pwd == "" {
		pwd = p.ProgramDir
	}
	args := []string{"-u", h.execPath,
		"--monitor", req.GetMonitorAddress(),
		"--engine", h.EngineAddress,
		"--project", req.GetProject(),
		"--stack", req.GetStack(),
		"--pwd", pwd,
		"--dry_run", fmt.Sprintf("%t", req.GetDryRun()),
		"--parallel", fmt.Sprintf("%d", req.GetParallel()),
		"--root_directory", p.Root,
	}
	if req.GetOrganization() != "" {
		args = append(args, "--organization", req.GetOrganization())
	}
	args = append(args, program)
	args = append(args, req.GetArgs()...)

	cmd, err := tc.Command(ctx, args...)
	if err != nil {
		return nil, err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	// A stack without config has a nil map, which would marshal as `null`; the Python SDK's
	// set_all_config expects an object, so send `{}` as upstream's host does.
	configMap := req.GetConfig()
	if configMap == nil {
		configMap = map[string]string{}
	}
	configEnv, err := langhost.ConfigEnv(configMap, req.GetConfigSecretKeys())
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, configEnv...)
	if req.GetLoaderTarget() != "" {
		cmd.Env = append(cmd.Env, "PULUMI_LOADER_TARGET="+req.GetLoaderTarget())
	}
	cmd.Dir = pwd
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return langhost.RunResult(cmd.Run(), "Program exited with non-zero exit code", problemRunning), nil
}

func problemRunning(err error) string {
	return fmt.Sprintf("Problem executing program (could not run language executor): %v", err)
}

func (h *host) RunPlugin(req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse]) error {
	ctx := server.Context()
	p := parseInfo(req.GetInfo(), req.GetPwd())
	tc, err := p.validated(ctx)
	if err != nil {
		return err
	}
	var cmd *exec.Cmd
	if req.GetKind() == "analyzer" {
		// A Python policy pack: `python -u -m pulumi.policy ENGINE_ADDRESS PACK_DIR` (module from the `pulumi` wheel).
		cmd, err = tc.Command(ctx, append(append([]string{"-u", "-m", "pulumi.policy"}, req.GetArgs()...), p.ProgramDir)...)
	} else {
		// A plugin written in Python: run its directory (its __main__.py) with the engine's arguments.
		cmd, err = tc.Command(ctx, append([]string{"-u", filepath.Join(p.ProgramDir, p.EntryPoint)}, req.GetArgs()...)...)
	}
	if err != nil {
		return err
	}
	environ := req.GetEnv()
	if len(environ) == 0 {
		environ = os.Environ()
	}
	if venv, verr := tc.VirtualEnvPath(ctx); verr == nil && venv != "" {
		environ = toolchain.ActivateVirtualEnv(environ, venv)
	}
	cmd.Env = environ
	cmd.Dir = req.GetPwd()
	if cmd.Dir == "" {
		cmd.Dir = p.ProgramDir
	}

	var mu *sync.Mutex
	cmd.Stdout, cmd.Stderr, mu = langhost.Streams(server,
		func(b []byte) *pulumirpc.RunPluginResponse {
			return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}}
		},
		func(b []byte) *pulumirpc.RunPluginResponse {
			return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}}
		})
	code := int32(0)
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return err
		}
		code = int32(exitErr.ExitCode())
	}
	mu.Lock()
	defer mu.Unlock()
	return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
}

func (h *host) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	p := parseInfo(req.GetInfo(), req.GetDirectory())
	tc, err := p.toolchain()
	if err != nil {
		return err
	}
	stdout, stderr := langhost.InstallStreams(server)
	return tc.InstallDependencies(server.Context(), p.ProgramDir, req.GetUseLanguageVersionTools(), true, stdout, stderr)
}

func (h *host) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	p := parseInfo(req.GetInfo(), "")
	tc, err := p.toolchain()
	if err != nil {
		return nil, err
	}
	info, err := tc.About(ctx)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{
		Executable: info.PythonExecutable,
		Version:    info.PythonVersion.String(),
		Metadata:   map[string]string{"toolchain": p.Option("toolchain"), "virtualenv": p.Option("virtualenv")},
	}, nil
}

func (h *host) GetProgramDependencies(ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest) (*pulumirpc.GetProgramDependenciesResponse, error) {
	p := parseInfo(req.GetInfo(), req.GetPwd())
	tc, err := p.validated(ctx)
	if err != nil {
		return nil, err
	}
	pkgs, err := tc.ListPackages(ctx, req.GetTransitiveDependencies())
	if err != nil {
		return nil, err
	}
	deps := make([]*pulumirpc.DependencyInfo, 0, len(pkgs))
	for _, d := range pkgs {
		deps = append(deps, &pulumirpc.DependencyInfo{Name: d.Name, Version: d.Version})
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}, nil
}
