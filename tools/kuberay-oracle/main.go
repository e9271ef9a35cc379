// Command kuberay-oracle judges KubeRay manifests with KubeRay's and Kubernetes' own Go code.
//
// It is a test instrument of pulumi-kuberay (never called by the product at run time). For every YAML/JSON
// document it reads (files named on the command line, or stdin; many documents per call) it prints one JSON
// verdict line:
//
//   - apiServer: what `kubectl create` would get from an API server serving the CRDs of the operator module's
//     config/crd/bases: defaulting, pruning (the list of unknown fields), metadata coercion and the custom
//     resource strategy's Validate (ObjectMeta, structural schema, list-type invariants, CEL rules), all
//     through k8s.io/apiextensions-apiserver's own packages.
//   - operator: on the defaulted object decoded into the operator's rayv1 types, the validation functions the
//     reconcilers of that operator version call, in their order, and again on the children they create (the
//     RayCluster of a RayJob/RayService, the RayJob of a RayCronJob; each child also goes through apiServer).
//   - webhooks: the operator's validating webhooks (off by default in the operator's deployment).
//   - corrected: what the operator silently changes (e.g. worker replicas clamped into [min, max]).
//
// usage: kuberay-oracle --crd-dir DIR [--feature-gates=RayCronJob=true,...|all] [FILE...]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"sigs.k8s.io/yaml"

	"github.com/ray-project/kuberay/ray-operator/pkg/features" // registers the operator's feature gates
)

const operatorModule = "github.com/ray-project/kuberay/ray-operator"

// Stamped by scripts/ensure-oracle (-ldflags -X): the operator version built against and where its source came
// from (the Go module proxy, or the reference copy and its checksum).
var (
	operatorVersionStamp = ""
	operatorSourceStamp  = ""
)

// certManagerAvailable: what the operator's start-up found (main.go of the operator: CertManagerAvailable).
var certManagerAvailable = true

// Verdict is the JSON line printed for one input document.
type Verdict struct {
	Index           int               `json:"index"`
	Source          string            `json:"source"`
	Kind            string            `json:"kind,omitempty"`
	Name            string            `json:"name,omitempty"`
	OperatorVersion string            `json:"operatorVersion"`
	FeatureGates    map[string]bool   `json:"featureGates"`
	APIServer       *APIServerVerdict `json:"apiServer"`
	Operator        *OperatorVerdict  `json:"operator,omitempty"`
	Webhooks        *WebhookVerdict   `json:"webhooks,omitempty"`
	Corrected       []Correction      `json:"corrected"`
	// Children: the API server's answer to each Pod, Service and Job the operator creates for the object
	// (children.go); ChildrenAccepted is false when any is refused (the object is stored, its workload never runs).
	Children         []ChildVerdict `json:"children"`
	ChildrenAccepted bool           `json:"childrenAccepted"`
	// Rejected is true when the API server or the operator rejects the object (webhooks not counted).
	Rejected bool `json:"rejected"`
}

func operatorVersion() string {
	if operatorVersionStamp != "" {
		return operatorVersionStamp
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == operatorModule {
				if dep.Replace != nil && dep.Replace.Version != "" {
					return dep.Replace.Version
				}
				return dep.Version
			}
		}
	}
	return "unknown"
}

// gateValues: every gate the operator version registers (features.OracleDefaultGates, an injected file) and
// whether it is on now.
func gateValues() map[string]bool {
	out := map[string]bool{}
	for name := range features.OracleDefaultGates() {
		out[name] = utilfeature.DefaultFeatureGate.Enabled(featureName(name))
	}
	return out
}

func setGates(spec string) error {
	if spec == "" {
		return nil
	}
	if spec == "all" {
		parts := []string{}
		for name := range gateValues() {
			parts = append(parts, name+"=true")
		}
		sort.Strings(parts)
		spec = strings.Join(parts, ",")
	}
	return utilfeature.DefaultMutableFeatureGate.Set(spec)
}

// readDocuments splits every input into YAML documents; each becomes JSON or an error of its own.
func readDocuments(source string, r io.Reader, emit func(source string, doc []byte, err error)) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReaderSize(r, 1<<20))
	for {
		raw, err := reader.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
		if strings.TrimSpace(stripComments(string(raw))) == "" {
			continue
		}
		doc, convErr := yaml.YAMLToJSON(raw)
		if convErr == nil && strings.TrimSpace(string(doc)) == "null" {
			continue
		}
		emit(source, doc, convErr)
	}
}

func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") || t == "---" {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func main() {
	// `kuberay-oracle plan ...`: the change decisions (plan.go; KubeRay >= 1.6, a stub below).
	if len(os.Args) > 1 && os.Args[1] == "plan" {
		os.Exit(planMain(os.Args[2:]))
	}
	crdDir := flag.String("crd-dir", os.Getenv("KUBERAY_ORACLE_CRD_DIR"),
		"directory with the ray.io CRDs of the operator version (its module's config/crd/bases)")
	gates := flag.String("feature-gates", "", "operator feature gates, e.g. RayCronJob=true,RayJobDeletionPolicy=false, or 'all'")
	showVersion := flag.Bool("version", false, "print the operator module version and the gate defaults, then exit")
	flag.BoolVar(&certManagerAvailable, "cert-manager", true,
		"the operator found cert-manager at start (v1.7: a RayCluster with tlsOptions fails without it)")
	flag.Parse()

	if err := setGates(*gates); err != nil {
		fmt.Fprintf(os.Stderr, "kuberay-oracle: --feature-gates: %v\n", err)
		os.Exit(2)
	}
	if *showVersion {
		out, _ := json.Marshal(map[string]any{
			"operatorVersion": operatorVersion(), "operatorSource": operatorSourceStamp, "featureGates": gateValues(),
		})
		fmt.Println(string(out))
		return
	}
	if *crdDir == "" {
		fmt.Fprintln(os.Stderr, "kuberay-oracle: --crd-dir (or KUBERAY_ORACLE_CRD_DIR) is required")
		os.Exit(2)
	}
	server, err := newAPIServer(*crdDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kuberay-oracle: loading CRDs: %v\n", err)
		os.Exit(2)
	}
	// The verdicts own stdout: the operator's code prints to it (utils.CheckName: "pod name is too long ..."),
	// which would land inside a verdict line; whatever else writes to os.Stdout goes to stderr.
	out := bufio.NewWriter(os.Stdout)
	os.Stdout = os.Stderr
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	index := 0
	judgeOne := func(source string, doc []byte, convErr error) {
		v := judge(server, doc, convErr)
		v.Index, v.Source = index, source
		index++
		if err := enc.Encode(v); err != nil {
			fmt.Fprintf(os.Stderr, "kuberay-oracle: %v\n", err)
			os.Exit(1)
		}
	}
	inputs := flag.Args()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	for _, name := range inputs {
		var r io.Reader = os.Stdin
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintf(os.Stderr, "kuberay-oracle: %v\n", err)
				os.Exit(2)
			}
			defer f.Close()
			r = f
		}
		if err := readDocuments(name, r, judgeOne); err != nil {
			fmt.Fprintf(os.Stderr, "kuberay-oracle: %v\n", err)
			os.Exit(2)
		}
	}
}
