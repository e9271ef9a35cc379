//go:build kuberay1.6

// The `plan` command: KubeRay's own change decisions, for tests/oracle/test_plan_differential.py (the change
// plan of pulumi_kuberay.plan must agree with them) and its Go type table (scripts/gen-plan-types).
//
//	kuberay-oracle plan types                 the Go types of rayv1.RayClusterSpec as the hash emulation reads them
//	kuberay-oracle plan --crd-dir DIR < CASES  one JSON line per case line: the decision functions' answers
//
// A case is {"id", "kind": "RayCluster"|"RayService", "old", "new" (manifests, through the API server's create
// path first), "gates": {name: bool}, "zeroDowntimeEnv": "false"|"", "headPod": {"annotations": {...}} (the
// live head Pod; absent: the one createHeadPod made from "old"), "headPodVersion" (that Pod's
// ray.io/kuberay-version instead of this operator's), "noHeadPod", "activeVersion" (the active
// cluster's ray.io/kuberay-version), "upgradeInProgress", "rollbackInProgress"}. The functions are the
// controllers' unexported ones, reached through inject/controllers/ray/oracle_plan.go.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	rayctrl "github.com/ray-project/kuberay/ray-operator/controllers/ray"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	"github.com/ray-project/kuberay/ray-operator/pkg/features"
)

type planCase struct {
	ID                 string                                   `json:"id"`
	Kind               string                                   `json:"kind"`
	Old                json.RawMessage                          `json:"old"`
	New                json.RawMessage                          `json:"new"`
	Gates              map[string]bool                          `json:"gates"`
	ZeroDowntimeEnv    string                                   `json:"zeroDowntimeEnv"`
	HeadPod            *struct{ Annotations map[string]string } `json:"headPod"`
	HeadPodVersion     *string                                  `json:"headPodVersion"`
	NoHeadPod          bool                                     `json:"noHeadPod"`
	ActiveVersion      *string                                  `json:"activeVersion"`
	UpgradeInProgress  bool                                     `json:"upgradeInProgress"`
	RollbackInProgress bool                                     `json:"rollbackInProgress"`
}

func planMain(args []string) int {
	if len(args) > 0 && args[0] == "types" {
		return planTypes()
	}
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	crdDir := fs.String("crd-dir", os.Getenv("KUBERAY_ORACLE_CRD_DIR"), "the operator version's ray.io CRDs")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	server, err := newAPIServer(*crdDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kuberay-oracle plan: loading CRDs: %v\n", err)
		return 2
	}
	defaults := features.OracleDefaultGates()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for in.Scan() {
		var c planCase
		result := map[string]any{}
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			result["error"] = err.Error()
		} else {
			result = decidePlan(server, defaults, &c)
			result["id"] = c.ID
		}
		result["kuberayVersion"] = utils.KUBERAY_VERSION
		if err := out.Encode(result); err != nil {
			return 1
		}
	}
	return 0
}

func setPlanGates(defaults map[string]bool, gates map[string]bool) error {
	parts := []string{}
	for name, value := range defaults {
		if v, ok := gates[name]; ok {
			value = v
		}
		parts = append(parts, fmt.Sprintf("%s=%t", name, value))
	}
	sort.Strings(parts)
	return utilfeature.DefaultMutableFeatureGate.Set(strings.Join(parts, ","))
}

// stored runs a manifest through the API server's create path and decodes it into a rayv1 object.
func planStored(server *apiServer, doc json.RawMessage, into any) error {
	verdict, u := server.create(doc)
	if u == nil || !verdict.Accepted {
		raw, _ := json.Marshal(verdict)
		return fmt.Errorf("the API server rejects it: %s", raw)
	}
	return decode(u, into)
}

func decidePlan(server *apiServer, defaults map[string]bool, c *planCase) map[string]any {
	if err := setPlanGates(defaults, c.Gates); err != nil {
		return map[string]any{"error": "gates: " + err.Error()}
	}
	if c.ZeroDowntimeEnv != "" {
		os.Setenv("ENABLE_ZERO_DOWNTIME", c.ZeroDowntimeEnv)
	} else {
		os.Unsetenv("ENABLE_ZERO_DOWNTIME")
	}
	switch c.Kind {
	case "RayCluster":
		return decideCluster(server, c)
	case "RayService":
		return decideService(server, c)
	}
	return map[string]any{"error": "no decision functions for kind " + c.Kind}
}

func planDesired(spec *rayv1.RayClusterSpec) map[string]int32 {
	out := map[string]int32{}
	for _, group := range spec.WorkerGroupSpecs {
		out[group.GroupName] = utils.GetWorkerGroupDesiredReplicas(group)
	}
	return out
}

func decideCluster(server *apiServer, c *planCase) map[string]any {
	var oldRC, newRC rayv1.RayCluster
	if err := planStored(server, c.Old, &oldRC); err != nil {
		return map[string]any{"error": "old: " + err.Error()}
	}
	if err := planStored(server, c.New, &newRC); err != nil {
		return map[string]any{"error": "new: " + err.Error()}
	}
	// rayClusterReconcile applies setDefaults to the object before it hashes or decides anything.
	rayctrl.OracleSetDefaults(&oldRC)
	rayctrl.OracleSetDefaults(&newRC)
	hashOld, err1 := utils.GenerateHashWithoutReplicasAndWorkersToDelete(oldRC.Spec)
	hashNew, err2 := utils.GenerateHashWithoutReplicasAndWorkersToDelete(newRC.Spec)
	if err1 != nil || err2 != nil {
		return map[string]any{"error": fmt.Sprintf("hash: %v %v", err1, err2)}
	}
	pods := []corev1.Pod{}
	if !c.NoHeadPod {
		annotations := map[string]string{
			utils.UpgradeStrategyRecreateHashKey: hashOld, utils.KubeRayVersion: utils.KUBERAY_VERSION,
		}
		if c.HeadPodVersion != nil {
			annotations[utils.KubeRayVersion] = *c.HeadPodVersion
		}
		if c.HeadPod != nil {
			annotations = c.HeadPod.Annotations
		}
		pods = append(pods, corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Name: newRC.Name + "-head", Namespace: newRC.Namespace, Annotations: annotations,
			Labels: map[string]string{utils.RayClusterLabelKey: newRC.Name, utils.RayNodeTypeLabelKey: string(rayv1.HeadNode)},
		}})
	}
	return map[string]any{
		"hashOld":    hashOld,
		"hashNew":    hashNew,
		"recreate":   rayctrl.OracleShouldRecreatePodsForUpgrade(&newRC, pods),
		"desiredOld": planDesired(&oldRC.Spec),
		"desiredNew": planDesired(&newRC.Spec),
	}
}

func planSetCondition(rs *rayv1.RayService, kind rayv1.RayServiceConditionType) {
	meta.SetStatusCondition(&rs.Status.Conditions, metav1.Condition{Type: string(kind), Status: metav1.ConditionTrue, Reason: "Oracle"})
}

func decideService(server *apiServer, c *planCase) map[string]any {
	var oldRS, newRS rayv1.RayService
	if err := planStored(server, c.Old, &oldRS); err != nil {
		return map[string]any{"error": "old: " + err.Error()}
	}
	if err := planStored(server, c.New, &newRS); err != nil {
		return map[string]any{"error": "new: " + err.Error()}
	}
	// The active cluster as the controller made it from the old spec (createRayClusterInstance).
	active, err := rayctrl.OracleConstructRayClusterForRayService(&oldRS, oldRS.Name+"-active")
	if err != nil {
		return map[string]any{"error": "constructRayClusterForRayService: " + err.Error()}
	}
	if c.ActiveVersion != nil {
		active.Annotations[utils.KubeRayVersion] = *c.ActiveVersion
	}
	if c.UpgradeInProgress {
		planSetCondition(&newRS, rayv1.UpgradeInProgress)
	}
	if c.RollbackInProgress {
		planSetCondition(&newRS, rayv1.RollbackInProgress)
	}
	result := map[string]any{
		"activeHash":   active.Annotations[utils.HashWithoutReplicasAndWorkersToDeleteKey],
		"equalFull":    rayctrl.OracleIsClusterSpecHashEqual(&newRS, active, false),
		"equalPartial": rayctrl.OracleIsClusterSpecHashEqual(&newRS, active, true),
		"zeroDowntime": rayctrl.OracleIsZeroDowntimeUpgradeEnabled(newRS.Spec.UpgradeStrategy),
		"incremental":  utils.IsIncrementalUpgradeEnabled(&newRS.Spec),
	}
	// reconcileRayCluster: update the active cluster in place, then calculateStatus: a new pending cluster?
	update := rayctrl.OracleShouldUpdateCluster(&newRS, active, true)
	result["updateActive"] = update
	if update {
		goal, err := rayctrl.OracleConstructRayClusterForRayService(&newRS, active.Name)
		if err != nil {
			return map[string]any{"error": "constructRayClusterForRayService: " + err.Error()}
		}
		before := active.Spec.DeepCopy()
		rayctrl.OracleModifyRayCluster(active, goal)
		result["activeSpecChanged"] = !reflect.DeepEqual(before, &active.Spec)
	}
	prepare := rayctrl.OracleShouldPrepareNewCluster(&newRS, active, nil, false)
	result["prepareNew"] = prepare
	// reconcileServe on the active cluster only when no new cluster is prepared (its cache: the old config).
	if !prepare {
		apps := map[string]rayv1.AppStatus{"app": {Status: rayv1.ApplicationStatusEnum.RUNNING}}
		submit, _ := rayctrl.OracleCheckIfNeedSubmitServeApplications(oldRS.Spec.ServeConfigV2, newRS.Spec.ServeConfigV2, apps)
		result["serveSubmit"] = submit
	}
	return result
}

// ---- the Go type table --------------------------------------------------------------------------------------

var marshalerType = reflect.TypeFor[json.Marshaler]()

type typeDumper struct{ types map[string]any }

func (d *typeDumper) key(t reflect.Type) string {
	parts := strings.Split(t.PkgPath(), "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/") + "." + t.Name()
}

func (d *typeDumper) ref(t reflect.Type) string {
	if t.Name() != "" && (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)) {
		k := d.key(t)
		d.types[k] = map[string]any{"custom": k}
		return k
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + d.ref(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		return "[]" + d.ref(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic("map key not a string: " + t.String())
		}
		return "map" + d.ref(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "uint"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Struct:
		k := d.key(t)
		if _, seen := d.types[k]; !seen {
			d.types[k] = nil // a recursive type refers to itself while its fields are listed
			d.types[k] = map[string]any{"fields": d.fields(t)}
		}
		return k
	}
	panic("unsupported kind: " + t.String())
}

// fields lists a struct's JSON fields in Go order as encoding/json sees them (embedded structs inlined).
func (d *typeDumper) fields(t reflect.Type) [][]any {
	out := [][]any{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, d.fields(et)...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		flags := ""
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				flags += "o"
			case "omitzero":
				flags += "z"
			case "string":
				flags += "s"
			}
		}
		out = append(out, []any{name, d.ref(sf.Type), flags})
	}
	return out
}

func planTypes() int {
	d := &typeDumper{types: map[string]any{}}
	root := d.ref(reflect.TypeFor[rayv1.RayClusterSpec]())
	out, err := json.Marshal(map[string]any{"version": operatorVersion(), "root": root, "types": d.types})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, _ = io.WriteString(os.Stdout, string(out)+"\n")
	return 0
}
