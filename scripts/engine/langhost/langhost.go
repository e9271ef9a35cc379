// Package langhost is what this project's own language hosts (scripts/engine/pulumi-language-go, -nodejs and
// -python) share: the command line the engine starts a host with and the gRPC server's life (Serve), the RPC
// methods that do not depend on the language (Base), the program's ProgramInfo, the Pulumi packages a program
// uses (Packages), the configuration a program reads from its environment (ConfigEnv), the engine's answer when a
// program ends (RunResult) and the streams of InstallDependencies and RunPlugin (Streams).
//
// It imports sdk/v3 only (never pkg/v3): the Python host is built inside the CLI's wrapper module and needs no
// code generator.
package langhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// BailExitCode is the exit code of a program (or of the SDK's launcher) that has already shown the user an
// actionable error (the SDKs' ExitStatusLoggedError): the engine is told to bail, not to report a failure.
const BailExitCode = 32

// Serve runs a language host as the engine starts it:
//
//	NAME [--logtostderr] [-v=N] [--tracing URL] [--root DIR] ... ENGINE_ADDRESS
//
// --version prints the version stamped at build time and returns. valueFlags are the host's own flags that take a
// separate value (ignored with it, as --tracing and --root are); any other flag is accepted and ignored. newHost
// makes the server from the engine's address (the last positional argument, "" without one). Serve prints the
// port, serves until the engine goes away (its health check fails) and exits 1 when the server fails.
func Serve(name string, valueFlags []string, newHost func(engineAddress string) pulumirpc.LanguageRuntimeServer) {
	engineAddress, showVersion := parseArgs(os.Args[1:], valueFlags)
	if showVersion {
		fmt.Println(version.Version)
		return
	}
	h := newHost(engineAddress)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if engineAddress != "" {
		go func() { // exit when the engine goes away
			if err := rpcutil.Healthcheck(ctx, engineAddress, 5*time.Minute, cancel); err != nil {
				fmt.Fprintf(os.Stderr, "healthcheck: %v\n", err)
			}
		}()
	}

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
		Fatalf(name, "could not start language host RPC server: %v", err)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		Fatalf(name, "language host RPC stopped serving: %v", err)
	}
}

// parseArgs returns the engine's address (the last positional argument) and whether --version came first.
func parseArgs(args, valueFlags []string) (engineAddress string, showVersion bool) {
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-version" || a == "--version":
			return "", true
		case a == "--tracing" || a == "-tracing" || a == "--root" || a == "-root" || slices.Contains(valueFlags, a):
			i++ // a flag with a separate value: ignore both
		case strings.HasPrefix(a, "-"):
			// --logtostderr, -v=N, --logflow, --typescript, ...: accepted and ignored
		default:
			positional = append(positional, a)
		}
	}
	if len(positional) > 0 {
		engineAddress = positional[len(positional)-1]
	}
	return engineAddress, false
}

// Fatalf prints "NAME: message" on stderr and exits 1.
func Fatalf(name, format string, args ...any) {
	fmt.Fprintf(os.Stderr, name+": "+format+"\n", args...)
	os.Exit(1)
}

// ---- RPC methods every host answers alike ---------------------------------------------------------------

// Base is embedded by each host's server: the engine's address, and the RPC methods that do not depend on the
// language (Handshake, GetPluginInfo, GetRequiredPackages and GetRequiredPlugins); the rest answer Unimplemented
// until the host defines them.
type Base struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	EngineAddress string
	// RequiredPackages lists the Pulumi packages the program uses (GetRequiredPackages, GetRequiredPlugins).
	RequiredPackages func(ctx context.Context, info *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, error)
}

// Handshake takes the engine's address when the engine sends one.
func (b *Base) Handshake(ctx context.Context, req *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() != "" {
		b.EngineAddress = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

// GetPluginInfo: the version stamped at build time (the CLI's).
func (b *Base) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: strings.TrimPrefix(version.Version, "v")}, nil
}

func (b *Base) GetRequiredPackages(ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	deps, err := b.RequiredPackages(ctx, req.GetInfo())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: deps}, nil
}

// GetRequiredPlugins: the required packages that are plain plugins (a parameterized package is not one).
//
//nolint:staticcheck // deprecated upstream, still called by older engines
func (b *Base) GetRequiredPlugins(ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	deps, err := b.RequiredPackages(ctx, req.GetInfo())
	if err != nil {
		return nil, err
	}
	var plugins []*pulumirpc.PluginDependency
	for _, d := range deps {
		if d.Parameterization == nil {
			plugins = append(plugins, &pulumirpc.PluginDependency{Name: d.Name, Kind: d.Kind, Version: d.Version, Server: d.Server})
		}
	}
	return &pulumirpc.GetRequiredPluginsResponse{Plugins: plugins}, nil
}

// ---- program info ---------------------------------------------------------------------------------------

// ProgramInfo is the engine's ProgramInfo with its defaults filled in.
type ProgramInfo struct {
	Root, ProgramDir, EntryPoint string
	Options                      map[string]any // Pulumi.yaml's runtime options
}

// ParseInfo reads info; the program directory defaults to fallbackDir, then to the working directory, the root
// to the program directory and the entry point to ".".
func ParseInfo(info *pulumirpc.ProgramInfo, fallbackDir string) ProgramInfo {
	p := ProgramInfo{EntryPoint: "."}
	if info != nil {
		p.Root, p.ProgramDir, p.EntryPoint = info.GetRootDirectory(), info.GetProgramDirectory(), info.GetEntryPoint()
		if o := info.GetOptions(); o != nil {
			p.Options = o.AsMap()
		}
	}
	if p.ProgramDir == "" {
		p.ProgramDir = fallbackDir
	}
	if p.ProgramDir == "" {
		p.ProgramDir, _ = os.Getwd()
	}
	if p.Root == "" {
		p.Root = p.ProgramDir
	}
	if p.EntryPoint == "" {
		p.EntryPoint = "."
	}
	return p
}

// Option is a string runtime option ("" when unset or not a string).
func (p ProgramInfo) Option(name string) string {
	if v, ok := p.Options[name].(string); ok {
		return v
	}
	return ""
}

// ---- Pulumi packages ------------------------------------------------------------------------------------

// PluginJSON is a pulumi-plugin.json file (and the "pulumi" section of an npm package.json).
type PluginJSON struct {
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

// WithV prefixes a version with "v" (the engine's spelling); "" stays "".
func WithV(v string) string {
	if v != "" && !strings.HasPrefix(v, "v") {
		return "v" + v
	}
	return v
}

// Packages collects the Pulumi packages a program uses, each (name, version, parameterization) once.
type Packages struct {
	list []*pulumirpc.PackageDependency
	seen map[string]bool
}

// Add records the resource package NAME at VERSION that pj describes (its server and parameterization).
func (s *Packages) Add(name, version string, pj PluginJSON) {
	dep := &pulumirpc.PackageDependency{Name: name, Kind: "resource", Version: WithV(version), Server: pj.Server}
	key := name + "@" + dep.Version
	if pp := pj.Parameterization; pp != nil {
		dep.Parameterization = &pulumirpc.PackageParameterization{Name: pp.Name, Version: WithV(pp.Version), Value: pp.Value}
		key += "/" + pp.Name + "@" + dep.Parameterization.Version
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[key] {
		s.seen[key] = true
		s.list = append(s.list, dep)
	}
}

// List is the packages in the order they were added (nil when none).
func (s *Packages) List() []*pulumirpc.PackageDependency {
	return s.list
}

// Sorted is the packages sorted by name.
func (s *Packages) Sorted() []*pulumirpc.PackageDependency {
	sort.Slice(s.list, func(i, j int) bool { return s.list[i].Name < s.list[j].Name })
	return s.list
}

// ---- running the program --------------------------------------------------------------------------------

// ConfigEnv is the program's configuration as the SDKs read it: PULUMI_CONFIG (config as JSON) and
// PULUMI_CONFIG_SECRET_KEYS (a JSON list, [] when there is none).
func ConfigEnv(config any, secretKeys []string) ([]string, error) {
	configJSON, err := json.Marshal(config)
	if err != nil {
		return nil, err
	}
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretKeysJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, err
	}
	return []string{"PULUMI_CONFIG=" + string(configJSON), "PULUMI_CONFIG_SECRET_KEYS=" + string(secretKeysJSON)}, nil
}

// RunResult is the engine's answer for a program that ended with err (cmd.Run's; nil: success). A program that
// exits with BailExitCode has shown its error (bail); another exit code is the error "EXITED: CODE"; an error
// other than an exit is problem(err).
func RunResult(err error, exited string, problem func(error) string) *pulumirpc.RunResponse {
	if err == nil {
		return &pulumirpc.RunResponse{}
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if exitErr.ExitCode() == BailExitCode {
			return &pulumirpc.RunResponse{Bail: true}
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("%s: %d", exited, exitErr.ExitCode())}
	}
	return &pulumirpc.RunResponse{Error: problem(err)}
}

// ---- streams --------------------------------------------------------------------------------------------

// streamWriter turns each write into one stream message (sent under the stream's mutex: gRPC streams are not
// safe for concurrent sends).
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

// Streams returns writers whose writes are sent on server as the messages stdout(b) and stderr(b), and the mutex
// they send under (hold it to send anything else on the stream while they may still write).
func Streams[T any](server grpc.ServerStreamingServer[T], stdout, stderr func([]byte) *T) (io.Writer, io.Writer, *sync.Mutex) {
	mu := &sync.Mutex{}
	return streamWriter{mu, func(b []byte) error { return server.Send(stdout(b)) }},
		streamWriter{mu, func(b []byte) error { return server.Send(stderr(b)) }}, mu
}

// InstallStreams are Streams for InstallDependencies.
func InstallStreams(server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) (stdout, stderr io.Writer) {
	stdout, stderr, _ = Streams(server,
		func(b []byte) *pulumirpc.InstallDependenciesResponse {
			return &pulumirpc.InstallDependenciesResponse{Stdout: b}
		},
		func(b []byte) *pulumirpc.InstallDependenciesResponse {
			return &pulumirpc.InstallDependenciesResponse{Stderr: b}
		})
	return stdout, stderr
}

// WriteFiles writes generated files (relative names) under dir, creating their directories.
func WriteFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		out := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(out, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}
