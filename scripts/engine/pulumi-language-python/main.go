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
// Built by scripts/ensure-pulumi inside the CLI wrapper module; stamped with the CLI version through
// -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=vX.Y.Z.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Exit code the exec script uses after it has shown the user an actionable error.
const bailExitCode = 32

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string
	execPath      string
}

func main() {
	// The engine runs us as: pulumi-language-python [--logtostderr] [-v=N] [--tracing URL] ENGINE_ADDRESS
	var positional []string
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-version" || a == "--version":
			fmt.Println(version.Version)
			return
		case a == "--tracing" || a == "-tracing" || a == "--root" || a == "-root":
			i++ // flag with a separate value: ignore both
		case strings.HasPrefix(a, "-"):
			// --logtostderr, -v=N, --logflow, ...: accepted and ignored
		default:
			positional = append(positional, a)
		}
	}
	var engineAddress string
	if len(positional) > 0 {
		engineAddress = positional[len(positional)-1]
	}

	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		fatalf("cannot locate own executable: %v", err)
	}
	execPath := filepath.Join(filepath.Dir(self), "pulumi-language-python-exec")
	if _, err := os.Stat(execPath); err != nil {
		fatalf("missing executor %s: %v", execPath, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if engineAddress != "" {
		// Exit when the engine goes away.
		go func() {
			if err := rpcutil.Healthcheck(ctx, engineAddress, 5*time.Minute, cancel); err != nil {
				fmt.Fprintf(os.Stderr, "healthcheck: %v\n", err)
			}
		}()
	}

	h := &host{engineAddress: engineAddress, execPath: execPath}
	cancelChan := make(chan bool)
	go func() { <-ctx.Done(); close(cancelChan) }()
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancelChan,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, h)
			return nil
		},
	})
	if err != nil {
		fatalf("could not start language host RPC server: %v", err)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fatalf("language host RPC stopped serving: %v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pulumi-language-python: "+format+"\n", args...)
	os.Exit(1)
}

// ---- program info and toolchain ---------------------------------------------------------------------

type programInfo struct {
	root, programDir, entryPoint string
	options                      map[string]any
}

func parseInfo(info *pulumirpc.ProgramInfo, fallbackDir string) programInfo {
	p := programInfo{entryPoint: "."}
	if info != nil {
		p.root, p.programDir, p.entryPoint = info.GetRootDirectory(), info.GetProgramDirectory(), info.GetEntryPoint()
		if o := info.GetOptions(); o != nil {
			p.options = o.AsMap()
		}
	}
	if p.programDir == "" {
		p.programDir = fallbackDir
	}
	if p.programDir == "" {
		p.programDir, _ = os.Getwd()
	}
	if p.root == "" {
		p.root = p.programDir
	}
	if p.entryPoint == "" {
		p.entryPoint = "."
	}
	return p
}

func (p programInfo) option(name string) string {
	if v, ok := p.options[name].(string); ok {
		return v
	}
	return ""
}

func (p programInfo) toolchain() (toolchain.Toolchain, error) {
	opts := toolchain.PythonOptions{Root: p.root, ProgramDir: p.programDir, Virtualenv: p.option("virtualenv")}
	switch strings.ToLower(p.option("toolchain")) {
	case "", "auto":
		opts.Toolchain = toolchain.Auto
	case "pip":
		opts.Toolchain = toolchain.Pip
	case "uv":
		opts.Toolchain = toolchain.Uv
	case "poetry":
		opts.Toolchain = toolchain.Poetry
	default:
		return nil, fmt.Errorf("unsupported Python toolchain %q", p.option("toolchain"))
	}
	return toolchain.ResolveToolchain(opts)
}

// validated returns the toolchain after checking its virtual environment (when one is configured).
func (p programInfo) validated(ctx context.Context) (toolchain.Toolchain, error) {
	tc, err := p.toolchain()
	if err != nil {
		return nil, err
	}
	if p.option("virtualenv") != "" {
		if err := tc.ValidateVenv(ctx); err != nil {
			return nil, err
		}
	}
	return tc, nil
}

// ---- RPC methods ------------------------------------------------------------------------------------

func (h *host) Handshake(context.Context, *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: strings.TrimPrefix(version.Version, "v")}, nil
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

type pluginJSON struct {
	Resource         bool   `json:"resource"`
	Name             string `json:"name"`
	Version          string `json:"version"`
	Server           string `json:"server"`
	Parameterization *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Value   []byte `json:"value"` // base64 in JSON
	} `json:"parameterization"`
}

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
	cmd.Dir = p.programDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing Pulumi plugins of the Python environment: %w: %s", err, stderr.String())
	}
	var deps []*pulumirpc.PackageDependency
	seen := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var pj pluginJSON
		if err := json.Unmarshal([]byte(line), &pj); err != nil || !pj.Resource || pj.Name == "" {
			continue
		}
		v := pj.Version
		if v != "" && !strings.HasPrefix(v, "v") {
			v = "v" + v
		}
		dep := &pulumirpc.PackageDependency{Name: pj.Name, Kind: "resource", Version: v, Server: pj.Server}
		key := pj.Name + "@" + v
		if pj.Parameterization != nil {
			pv := pj.Parameterization.Version
			if pv != "" && !strings.HasPrefix(pv, "v") {
				pv = "v" + pv
			}
			dep.Parameterization = &pulumirpc.PackageParameterization{
				Name: pj.Parameterization.Name, Version: pv, Value: pj.Parameterization.Value,
			}
			key += "/" + pj.Parameterization.Name + "@" + pv
		}
		if !seen[key] {
			seen[key] = true
			deps = append(deps, dep)
		}
	}
	return deps, nil
}

func (h *host) GetRequiredPackages(ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	deps, err := h.scanPackages(ctx, req.GetInfo())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: deps}, nil
}

//nolint:staticcheck // deprecated upstream, still called by older engines
func (h *host) GetRequiredPlugins(ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	deps, err := h.scanPackages(ctx, req.GetInfo())
	if err != nil {
		return nil, err
	}
	var plugins []*pulumirpc.PluginDependency
	for _, d := range deps {
		if d.Parameterization != nil {
			continue
		}
		plugins = append(plugins, &pulumirpc.PluginDependency{Name: d.Name, Kind: d.Kind, Version: d.Version, Server: d.Server})
	}
	return &pulumirpc.GetRequiredPluginsResponse{Plugins: plugins}, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	p := parseInfo(req.GetInfo(), req.GetPwd())
	tc, err := p.validated(ctx)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	program := req.GetProgram()
	if program == "" {
		program = p.entryPoint
	}
	if !filepath.IsAbs(program) {
		program = filepath.Join(p.programDir, program)
	}
	pwd := req.GetPwd()
	if pwd == "" {
		pwd = p.programDir
	}
	args := []string{"-u", h.execPath,
		"--monitor", req.GetMonitorAddress(),
		"--engine", h.engineAddress,
		"--project", req.GetProject(),
		"--stack", req.GetStack(),
		"--pwd", pwd,
		"--dry_run", fmt.Sprintf("%t", req.GetDryRun()),
		"--parallel", fmt.Sprintf("%d", req.GetParallel()),
		"--root_directory", p.root,
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
	config, err := json.Marshal(configMap)
	if err != nil {
		return nil, err
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretKeysJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, "PULUMI_CONFIG="+string(config), "PULUMI_CONFIG_SECRET_KEYS="+string(secretKeysJSON))
	if req.GetLoaderTarget() != "" {
		cmd.Env = append(cmd.Env, "PULUMI_LOADER_TARGET="+req.GetLoaderTarget())
	}
	cmd.Dir = pwd
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr

	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if exitErr.ExitCode() == bailExitCode {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode())}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Problem executing program (could not run language executor): %v", err)}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// streamWriter turns writes into RunPlugin/InstallDependencies stream messages.
type streamWriter struct {
	mu   *sync.Mutex
	send func([]byte) error
}

func (w streamWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := make([]byte, len(b))
	copy(buf, b)
	if err := w.send(buf); err != nil {
		return 0, err
	}
	return len(b), nil
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
		cmd, err = tc.Command(ctx, append(append([]string{"-u", "-m", "pulumi.policy"}, req.GetArgs()...), p.programDir)...)
	} else {
		// A plugin written in Python: run its directory (its __main__.py) with the engine's arguments.
		cmd, err = tc.Command(ctx, append([]string{"-u", filepath.Join(p.programDir, p.entryPoint)}, req.GetArgs()...)...)
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
		cmd.Dir = p.programDir
	}

	mu := &sync.Mutex{}
	cmd.Stdout = streamWriter{mu, func(b []byte) error {
		return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}})
	}}
	cmd.Stderr = streamWriter{mu, func(b []byte) error {
		return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}})
	}}
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
	ctx := server.Context()
	p := parseInfo(req.GetInfo(), req.GetDirectory())
	tc, err := p.toolchain()
	if err != nil {
		return err
	}
	mu := &sync.Mutex{}
	var stdout io.Writer = streamWriter{mu, func(b []byte) error {
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stdout: b})
	}}
	var stderr io.Writer = streamWriter{mu, func(b []byte) error {
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stderr: b})
	}}
	return tc.InstallDependencies(ctx, p.programDir, req.GetUseLanguageVersionTools(), true, stdout, stderr)
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
		Metadata:   map[string]string{"toolchain": p.option("toolchain"), "virtualenv": p.option("virtualenv")},
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
