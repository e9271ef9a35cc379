package main

// The children: what the operator creates for a Ray object it accepts (the head Pod and one Pod per worker
// group, the head Service, in K8sJobMode the submitter Job), built with the operator's own builders
// (inject/controllers/ray/oracle_children.go: buildHeadPod, buildWorkerPod, getSubmitterTemplate +
// createNewK8sJob; common.BuildServiceForHeadPod) and judged with the API server's own create path for that
// kind: defaulting (SetObjectDefaults_*), conversion to the internal type, the strategy's PrepareForCreate and
// Validate (ValidatePodCreate, ValidateServiceCreate, ValidateJob). Each error is reported at the field path of
// the input document it came from (childField keeps the child's own path).

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage/names"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/batch"
	k8sbatchv1 "k8s.io/kubernetes/pkg/apis/batch/v1"
	api "k8s.io/kubernetes/pkg/apis/core"
	k8scorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	serviceregistry "k8s.io/kubernetes/pkg/registry/core/service"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	rayctrl "github.com/ray-project/kuberay/ray-operator/controllers/ray"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/common"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
)

// ChildVerdict is what the API server answers to one object the operator creates.
type ChildVerdict struct {
	// Object names the child and its parent: "Pod/demo-head (created by RayCluster/demo)".
	Object string `json:"object"`
	Kind   string `json:"kind"` // Pod | Service | Job
	// Role: "head", "worker:<group>", "head-service", "submitter".
	Role string `json:"role"`
	// Function: the API server's validation function that judged it.
	Function string       `json:"function"`
	Accepted bool         `json:"accepted"`
	Errors   []ChildError `json:"errors"`
}

// ChildError is one error of a child, at the input document's field it came from.
type ChildError struct {
	Field      string `json:"field"`      // in the input document: spec.headGroupSpec.template.spec.serviceAccountName
	ChildField string `json:"childField"` // in the child: spec.serviceAccountName
	Type       string `json:"type"`
	Detail     string `json:"detail"`
}

// jobSpecPaths: where the input document of each kind holds the RayJobSpec (a RayCronJob's template).
var jobSpecPaths = map[string]string{"RayJob": "spec", "RayCronJob": "spec.jobTemplate"}

func (j *judgement) rootKind() string { return fmt.Sprint(j.declared["kind"]) }

// clusterPrefix: the input document's path of the RayClusterSpec its clusters get.
func (j *judgement) clusterPrefix() string { return strings.Join(clusterSpecPaths[j.rootKind()], ".") }

// clusterChildren builds and judges the Pods and the head Service of an accepted RayCluster (createHeadPod,
// createWorkerPod, reconcileHeadService).
func (j *judgement) clusterChildren(rc *rayv1.RayCluster, object string) {
	prefix := j.clusterPrefix()
	if prefix == "" {
		return
	}
	cluster := rc.DeepCopy()
	cluster.UID = rayctrl.OracleUID
	rayctrl.OracleChildDefaults(cluster)
	by := " (created by " + object + ")"
	var head corev1.Pod
	if j.call(object, "buildHeadPod", func() error { head = rayctrl.OracleBuildHeadPod(cluster); return nil }) {
		tmpl := asMap(rc.Spec.HeadGroupSpec.Template)
		j.children = append(j.children, judgePod(&head, "head", by, templateMapper(prefix+".headGroupSpec.template", tmpl)))
	}
	for i := range cluster.Spec.WorkerGroupSpecs {
		var pod corev1.Pod
		if !j.call(object, "buildWorkerPod", func() error { pod = rayctrl.OracleBuildWorkerPod(cluster, i); return nil }) {
			continue
		}
		tmpl := asMap(rc.Spec.WorkerGroupSpecs[i].Template)
		at := fmt.Sprintf("%s.workerGroupSpecs[%d].template", prefix, i)
		j.children = append(j.children, judgePod(&pod, "worker:"+rc.Spec.WorkerGroupSpecs[i].GroupName, by, templateMapper(at, tmpl)))
	}
	// reconcileHeadService's labels and annotations.
	labels := map[string]string{}
	if val, ok := cluster.Spec.HeadGroupSpec.Template.Labels[utils.KubernetesApplicationNameLabelKey]; ok {
		labels[utils.KubernetesApplicationNameLabelKey] = val
	}
	annotations := map[string]string{}
	maps.Copy(annotations, cluster.Spec.HeadServiceAnnotations)
	var svc *corev1.Service
	if !j.call(object, "common.BuildServiceForHeadPod", func() (err error) {
		svc, err = common.BuildServiceForHeadPod(context.Background(), *cluster, labels, annotations)
		return err
	}) {
		return
	}
	j.children = append(j.children, judgeService(svc, by, j.serviceMapper(rc, prefix)))
}

// submitterChildren builds and judges the submitter Job of an accepted RayJob in K8sJobMode, against the
// RayCluster the job runs on (createK8sJobIfNeed).
func (j *judgement) submitterJob(rj *rayv1.RayJob, cluster *rayv1.RayCluster, object string) {
	prefix, ok := jobSpecPaths[j.rootKind()]
	if !ok || rj.Spec.SubmissionMode != rayv1.K8sJobMode {
		return
	}
	job := rj.DeepCopy()
	job.UID = rayctrl.OracleUID
	var built *batchv1.Job
	if !j.call(object, "getSubmitterTemplate+createNewK8sJob", func() (err error) {
		built, err = rayctrl.OracleSubmitterJob(job, cluster)
		return err
	}) {
		return
	}
	var tmpl map[string]any
	if rj.Spec.SubmitterPodTemplate != nil {
		tmpl = asMap(*rj.Spec.SubmitterPodTemplate)
	}
	j.children = append(j.children, judgeJob(built, " (created by "+object+")", submitterMapper(prefix, tmpl)))
}

// ---- the API server's create path, per kind -------------------------------------------------------------

// judgePod: the Pod REST storage's create (SetObjectDefaults_Pod on decoding, the conversion, podStrategy's
// PrepareForCreate and Validate).
func judgePod(pod *corev1.Pod, role, by string, mapPath func(string) string) ChildVerdict {
	in := pod.DeepCopy()
	generateName(&in.ObjectMeta)
	out := ChildVerdict{Object: "Pod/" + in.Name + by, Kind: "Pod", Role: role, Function: "ValidatePodCreate"}
	k8scorev1.SetObjectDefaults_Pod(in)
	internal := &api.Pod{}
	if err := k8scorev1.Convert_v1_Pod_To_core_Pod(in, internal, nil); err != nil {
		return out.fail(field.ErrorList{field.InternalError(nil, err)}, mapPath)
	}
	// The ServiceAccount admission plugin (on by default) runs before validation: a Pod without a service
	// account gets "default" (Plugin.Admit), so its projected service account token volumes are allowed.
	if internal.Spec.ServiceAccountName == "" {
		internal.Spec.ServiceAccountName = "default"
	}
	internal.Generation = 1
	internal.Status = api.PodStatus{Phase: api.PodPending}
	podutil.DropDisabledPodFields(internal, nil)
	opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&internal.Spec, nil, &internal.ObjectMeta, nil)
	opts.ResourceIsPod = true
	return out.fail(corevalidation.ValidatePodCreate(internal, opts), mapPath)
}

// judgeService: the Service REST storage's create (SetObjectDefaults_Service, the conversion, svcStrategy).
func judgeService(svc *corev1.Service, by string, mapPath func(string) string) ChildVerdict {
	in := svc.DeepCopy()
	generateName(&in.ObjectMeta)
	out := ChildVerdict{Object: "Service/" + in.Name + by, Kind: "Service", Role: "head-service", Function: "ValidateServiceCreate"}
	k8scorev1.SetObjectDefaults_Service(in)
	internal := &api.Service{}
	if err := k8scorev1.Convert_v1_Service_To_core_Service(in, internal, nil); err != nil {
		return out.fail(field.ErrorList{field.InternalError(nil, err)}, mapPath)
	}
	// The Service REST storage's beginCreate: normalizeClusterIPs (a create with clusterIP and no clusterIPs).
	if internal.Spec.ClusterIP != "" && len(internal.Spec.ClusterIPs) == 0 {
		internal.Spec.ClusterIPs = []string{internal.Spec.ClusterIP}
	}
	ctx := genericapirequest.WithNamespace(context.Background(), internal.Namespace)
	serviceregistry.Strategy.PrepareForCreate(ctx, internal)
	return out.fail(serviceregistry.Strategy.Validate(ctx, internal), mapPath)
}

// judgeJob: the Job REST storage's create (SetObjectDefaults_Job, the conversion, jobStrategy: its
// PrepareForCreate generates the selector and the template's labels, then ValidateJob).
func judgeJob(job *batchv1.Job, by string, mapPath func(string) string) ChildVerdict {
	in := job.DeepCopy()
	generateName(&in.ObjectMeta)
	out := ChildVerdict{Object: "Job/" + in.Name + by, Kind: "Job", Role: "submitter", Function: "ValidateJob"}
	in.UID = rayctrl.OracleUID // the uid the API server gives it (generateSelector labels the template with it)
	k8sbatchv1.SetObjectDefaults_Job(in)
	internal := &batch.Job{}
	if err := k8sbatchv1.Convert_v1_Job_To_batch_Job(in, internal, nil); err != nil {
		return out.fail(field.ErrorList{field.InternalError(nil, err)}, mapPath)
	}
	ctx := genericapirequest.WithNamespace(context.Background(), internal.Namespace)
	jobregistry.Strategy.PrepareForCreate(ctx, internal)
	return out.fail(jobregistry.Strategy.Validate(ctx, internal), mapPath)
}

// generateName: rest.BeforeCreate names an object from its generateName before it is validated.
func generateName(meta *metav1.ObjectMeta) {
	if meta.Name == "" && meta.GenerateName != "" {
		meta.Name = names.SimpleNameGenerator.GenerateName(meta.GenerateName)
	}
}

func (v ChildVerdict) fail(errs field.ErrorList, mapPath func(string) string) ChildVerdict {
	v.Errors = make([]ChildError, 0, len(errs))
	for _, e := range errs {
		v.Errors = append(v.Errors, ChildError{Field: mapPath(e.Field), ChildField: e.Field, Type: string(e.Type), Detail: e.ErrorBody()})
	}
	v.Accepted = len(v.Errors) == 0
	return v
}

// ---- from a child's field path to the input document's ---------------------------------------------------

var pathStep = regexp.MustCompile(`^([^.\[]+)((?:\[[^\]]*\])*)`)

// walk follows a child's field path ("spec.containers[0].ports[1].name", "spec.containers[0].resources.
// limits[cpu]") through what the user wrote (a JSON-like tree) and returns its longest prefix present there:
// an error on something the operator added or defaulted is reported at the nearest field the user wrote (a
// field left out of an object the user wrote is named itself: spec.restartPolicy).
func walk(path string, tree any) string {
	kept := ""
	node := tree
	rest := path
	for rest != "" {
		m := pathStep.FindStringSubmatch(rest)
		if m == nil {
			break
		}
		obj, ok := node.(map[string]any)
		if !ok {
			break
		}
		next, ok := obj[m[1]]
		if !ok {
			if m[2] == "" && strings.TrimPrefix(rest, m[0]) == "" {
				kept = join(kept, m[1]) // a field the user left out, in an object they wrote: the field itself
			}
			break
		}
		step := m[1]
		node = next
		for _, idx := range regexp.MustCompile(`\[([^\]]*)\]`).FindAllStringSubmatch(m[2], -1) {
			switch n := node.(type) {
			case []any:
				i, err := strconv.Atoi(idx[1])
				if err != nil || i < 0 || i >= len(n) {
					return join(kept, step)
				}
				node = n[i]
			case map[string]any:
				v, ok := n[idx[1]]
				if !ok {
					return join(kept, step)
				}
				node = v
			default:
				return join(kept, step)
			}
			step += idx[0]
		}
		kept = join(kept, step)
		rest = strings.TrimPrefix(strings.TrimPrefix(rest, m[0]), ".")
	}
	return kept
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "." + b
}

func asMap(v any) map[string]any {
	raw, _ := json.Marshal(v)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return out
}

// templateMapper: a Pod's "metadata..." and "spec..." are its group's pod template's (at `at`).
func templateMapper(at string, tmpl map[string]any) func(string) string {
	return func(path string) string { return join(at, walk(path, tmpl)) }
}

// serviceMapper: the head Service comes from headGroupSpec.headService when set, else its ports from the head
// container's ports (getServicePorts) and its name from the cluster's.
func (j *judgement) serviceMapper(rc *rayv1.RayCluster, prefix string) func(string) string {
	return func(path string) string {
		if rc.Spec.HeadGroupSpec.HeadService != nil {
			return join(prefix+".headGroupSpec.headService", walk(path, asMap(*rc.Spec.HeadGroupSpec.HeadService)))
		}
		if strings.HasPrefix(path, "spec.ports") {
			return prefix + ".headGroupSpec.template.spec.containers[0].ports"
		}
		if strings.HasPrefix(path, "metadata.annotations") {
			return prefix + ".headServiceAnnotations"
		}
		return "metadata.name"
	}
}

// submitterMapper: the Job's template is spec.submitterPodTemplate (else the default template of
// GetSubmitterTemplate), its backoffLimit spec.submitterConfig.backoffLimit, its name the RayJob's.
func submitterMapper(prefix string, tmpl map[string]any) func(string) string {
	return func(path string) string {
		switch {
		case strings.HasPrefix(path, "spec.template"):
			sub := strings.TrimPrefix(strings.TrimPrefix(path, "spec.template"), ".")
			if tmpl == nil {
				return prefix + ".submitterPodTemplate"
			}
			return join(prefix+".submitterPodTemplate", walk(sub, tmpl))
		case strings.HasPrefix(path, "spec.backoffLimit"):
			return prefix + ".submitterConfig.backoffLimit"
		default:
			return "metadata.name"
		}
	}
}
