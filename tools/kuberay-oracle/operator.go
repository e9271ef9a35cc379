package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	rayctrl "github.com/ray-project/kuberay/ray-operator/controllers/ray"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/common"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils/dashboardclient"
	webhooks "github.com/ray-project/kuberay/ray-operator/pkg/webhooks/v1"
)

// Check is one validation function called on one object.
type Check struct {
	Object   string `json:"object"`
	Function string `json:"function"`
	Error    string `json:"error,omitempty"`
}

// OperatorVerdict is what the operator's reconcilers do with the object and the children they create.
type OperatorVerdict struct {
	Accepted bool `json:"accepted"`
	// Ignored: the operator never acts on the object (managedBy names another controller, or the kind's
	// controller is off behind a feature gate); the reason says which.
	Ignored       bool     `json:"ignored"`
	IgnoredReason string   `json:"ignoredReason,omitempty"`
	Checks        []Check  `json:"checks"`
	Errors        []string `json:"errors"`
	// Inert lists settings the operator accepts but, by its own code, never acts on under these gates.
	Inert []Inert `json:"inert"`
}

// Inert is a setting the operator ignores.
type Inert struct {
	Object string `json:"object"`
	Field  string `json:"field"`
	Why    string `json:"why"`
}

// WebhookVerdict is what the operator's validating webhooks (off by default) answer on create.
type WebhookVerdict struct {
	Accepted bool     `json:"accepted"`
	Errors   []string `json:"errors"`
}

// Correction is something the operator silently changes instead of rejecting.
type Correction struct {
	Object string `json:"object"`
	Field  string `json:"field"`
	From   any    `json:"from"`
	To     any    `json:"to"`
	By     string `json:"by"`
}

// childSuffix stands for the 5 random characters of utils.GenerateRayClusterName and RayCronJob's
// constructRayJob (rand.String(5)).
const childSuffix = "bcdfg"

type judgement struct {
	server    *apiServer
	operator  *OperatorVerdict
	corrected []Correction
	// declared is the input document before the API server's defaulting: only values the user wrote can be
	// "corrected" (replicas defaulted to 0 and raised to minReplicas is just the default at work).
	declared map[string]any
	// childWebhookErrors: what the webhooks (when on) answer to the objects the operator creates.
	childWebhookErrors []string
	// children: the API server's answer to each Pod, Service and Job the operator creates (children.go).
	children []ChildVerdict
}

// clusterSpecPaths: where the input document of each kind holds the RayClusterSpec its clusters get.
var clusterSpecPaths = map[string][]string{
	"RayCluster": {"spec"}, "RayJob": {"spec", "rayClusterSpec"}, "RayService": {"spec", "rayClusterConfig"},
	"RayCronJob": {"spec", "jobTemplate", "rayClusterSpec"},
}

func (j *judgement) declaredReplicas(group int) bool {
	path, ok := clusterSpecPaths[fmt.Sprint(j.declared["kind"])]
	if !ok {
		return false
	}
	groups, found, _ := unstructured.NestedSlice(j.declared, append(path, "workerGroupSpecs")...)
	if !found || group >= len(groups) {
		return false
	}
	wg, _ := groups[group].(map[string]any)
	_, set := wg["replicas"]
	return set
}

func judge(server *apiServer, doc []byte, convErr error) Verdict {
	v := Verdict{OperatorVersion: operatorVersion(), FeatureGates: gateValues(), Corrected: []Correction{},
		Children: []ChildVerdict{}, ChildrenAccepted: true}
	if convErr != nil {
		v.APIServer = reject("", "the document cannot be sent as JSON: "+convErr.Error())
		v.Rejected = true
		return v
	}
	apiVerdict, u := server.create(doc)
	v.APIServer = apiVerdict
	if u != nil {
		v.Kind, v.Name = u.GetKind(), u.GetName()
	}
	if !apiVerdict.Accepted {
		v.Rejected = true
		return v
	}
	declared := map[string]any{}
	_ = json.Unmarshal(doc, &declared)
	j := &judgement{server: server, declared: declared,
		operator: &OperatorVerdict{Checks: []Check{}, Errors: []string{}, Inert: []Inert{}}}
	j.reconcile(u, "")
	j.operator.Accepted = len(j.operator.Errors) == 0
	v.Operator, v.Corrected = j.operator, j.corrected
	if v.Corrected == nil {
		v.Corrected = []Correction{}
	}
	v.Children = j.children
	if v.Children == nil {
		v.Children = []ChildVerdict{}
	}
	v.ChildrenAccepted = true
	for _, c := range v.Children {
		v.ChildrenAccepted = v.ChildrenAccepted && c.Accepted
	}
	v.Webhooks = runWebhooks(u)
	v.Webhooks.Errors = append(v.Webhooks.Errors, j.childWebhookErrors...)
	v.Webhooks.Accepted = len(v.Webhooks.Errors) == 0
	v.Rejected = !v.Operator.Accepted
	return v
}

// call runs one validation function, turning a panic (controller-runtime recovers it and requeues, so the
// object never progresses) into an error.
func (j *judgement) call(object, function string, fn func() error) (ok bool) {
	check := Check{Object: object, Function: function}
	func() {
		defer func() {
			if r := recover(); r != nil {
				check.Error = fmt.Sprintf("panic: %v", r)
			}
		}()
		if err := fn(); err != nil {
			check.Error = err.Error()
		}
	}()
	j.operator.Checks = append(j.operator.Checks, check)
	if check.Error != "" {
		j.operator.Errors = append(j.operator.Errors, object+": "+function+": "+check.Error)
		return false
	}
	return true
}

func errNoController(kind string) error { return fmt.Errorf("no KubeRay controller for kind %q", kind) }

func decode(u *unstructured.Unstructured, into any) error {
	raw, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}

func (j *judgement) ignore(reason string) {
	if !j.operator.Ignored {
		j.operator.Ignored, j.operator.IgnoredReason = true, reason
	}
}

// reconcile dispatches on the kind; createdBy is "" for the input object, else the parent's description.
func (j *judgement) reconcile(u *unstructured.Unstructured, createdBy string) {
	object := u.GetKind() + "/" + u.GetName() + createdBy
	switch u.GetKind() {
	case "RayCluster":
		rc := &rayv1.RayCluster{}
		if j.call(object, "decode", func() error { return decode(u, rc) }) {
			j.rayCluster(rc, object, createdBy == "")
		}
	case "RayJob":
		rj := &rayv1.RayJob{}
		if j.call(object, "decode", func() error { return decode(u, rj) }) {
			j.rayJob(rj, object, createdBy == "")
		}
	case "RayService":
		rs := &rayv1.RayService{}
		if j.call(object, "decode", func() error { return decode(u, rs) }) {
			j.rayService(rs, object)
		}
	case "RayCronJob":
		j.reconcileCronJob(u, object)
	default:
		j.call(object, "kind", func() error { return errNoController(u.GetKind()) })
	}
}

// rayCluster follows RayClusterReconciler.rayClusterReconcile.
func (j *judgement) rayCluster(rc *rayv1.RayCluster, object string, root bool) {
	if manager := utils.ManagedByExternalController(rc.Spec.ManagedBy); manager != nil {
		if root {
			j.ignore("spec.managedBy is " + *manager + ": the RayCluster controller skips it (ManagedByExternalController)")
		}
		return
	}
	ok := j.call(object, "ValidateRayClusterMetadata", func() error { return utils.ValidateRayClusterMetadata(rc.ObjectMeta) }) &&
		j.call(object, "ValidateRayClusterSpec", func() error { return utils.ValidateRayClusterSpec(&rc.Spec, rc.Annotations) }) &&
		j.tlsNeedsCertManager(rc, object) &&
		j.validateClusterUpgradeOptions(rc, object) &&
		j.call(object, "ValidateRayClusterStatus", func() error { return utils.ValidateRayClusterStatus(rc) })
	j.clampedReplicas(&rc.Spec, object)
	if ok {
		j.clusterChildren(rc, object)
	}
}

// clampedReplicas reports worker replicas outside [minReplicas, maxReplicas] (GetWorkerGroupDesiredReplicas).
func (j *judgement) clampedReplicas(spec *rayv1.RayClusterSpec, object string) {
	for i, wg := range spec.WorkerGroupSpecs {
		if wg.Replicas == nil || (wg.Suspend != nil && *wg.Suspend) || wg.NumOfHosts <= 0 || !j.declaredReplicas(i) {
			continue
		}
		desired := desiredReplicas(wg) / wg.NumOfHosts
		if desired != *wg.Replicas {
			j.corrected = append(j.corrected, Correction{
				Object: object, Field: fmt.Sprintf("spec.workerGroupSpecs[%d].replicas", i),
				From: *wg.Replicas, To: desired, By: "GetWorkerGroupDesiredReplicas",
			})
		}
	}
}

// rayJob follows RayJobReconciler.Reconcile: validateRayJob, then the RayCluster it creates
// (getOrCreateRayClusterInstance / constructRayClusterForRayJob) unless clusterSelector names an existing one.
func (j *judgement) rayJob(rj *rayv1.RayJob, object string, root bool) {
	if manager := utils.ManagedByExternalController(rj.Spec.ManagedBy); manager != nil {
		if root {
			j.ignore("spec.managedBy is " + *manager + ": the RayJob controller skips it (ManagedByExternalController)")
		}
		return
	}
	ok := j.call(object, "ValidateRayJobMetadata", func() error { return utils.ValidateRayJobMetadata(rj.ObjectMeta) }) &&
		j.call(object, "ValidateRayJobSpec", func() error { return utils.ValidateRayJobSpec(rj) }) &&
		j.call(object, "ValidateRayJobStatus", func() error { return utils.ValidateRayJobStatus(rj) })
	if !ok {
		return
	}
	// RayJobReconciler.Reconcile only submits in these modes (createK8sJobIfNeed, the sidecar, the HTTP
	// SubmitJob call, or the user for InteractiveMode); the CRD takes any string.
	switch rj.Spec.SubmissionMode {
	case rayv1.K8sJobMode, rayv1.HTTPMode, rayv1.InteractiveMode, rayv1.SidecarMode:
	default:
		j.operator.Inert = append(j.operator.Inert, Inert{Object: object, Field: "spec.submissionMode",
			Why: fmt.Sprintf("submissionMode %q has no submission path in RayJobReconciler: the job is never submitted", rj.Spec.SubmissionMode)})
	}
	if len(rj.Spec.ClusterSelector) != 0 && rj.Spec.RayClusterSpec != nil {
		j.operator.Inert = append(j.operator.Inert, Inert{Object: object, Field: "spec.rayClusterSpec",
			Why: "clusterSelector is set: getOrCreateRayClusterInstance uses the selected RayCluster and never creates this one"})
	}
	// The submission: the submitter's `ray job submit` command (configureSubmitterContainer builds it in
	// K8sJobMode whatever the submitter template says, and in SidecarMode when the RayCluster is constructed),
	// or the HTTP request of RayDashboardClient.SubmitJob (ConvertRayJobToReq, then json.Marshal). An error
	// there means the job is never submitted.
	switch rj.Spec.SubmissionMode {
	case rayv1.K8sJobMode, rayv1.SidecarMode:
		if !j.call(object, "common.BuildJobSubmitCommand", func() error {
			_, err := common.BuildJobSubmitCommand(rj, rj.Spec.SubmissionMode)
			return err
		}) {
			return
		}
	case rayv1.HTTPMode:
		if !j.call(object, "dashboardclient.ConvertRayJobToReq+json.Marshal", func() error {
			req, err := dashboardclient.ConvertRayJobToReq(rj)
			if err == nil {
				_, err = json.Marshal(req)
			}
			return err
		}) {
			return
		}
	}
	if len(rj.Spec.ClusterSelector) != 0 && rj.Spec.SubmitterPodTemplate != nil {
		// The selected RayCluster is not in the manifest: a stand-in with its name (a submitter template of the
		// user's own reads nothing else of it).
		standIn := &rayv1.RayCluster{ObjectMeta: metav1.ObjectMeta{Name: rj.Spec.ClusterSelector[utils.RayJobClusterSelectorKey], Namespace: rj.Namespace}}
		j.submitterJob(rj, standIn, object)
	}
	if len(rj.Spec.ClusterSelector) != 0 || rj.Spec.RayClusterSpec == nil {
		return
	}
	// getOrCreateRayClusterInstance: the RayCluster of constructRayClusterForRayJob (in SidecarMode with the
	// submitter container of getSubmitterContainer), owned by the RayJob.
	owner := rj.DeepCopy()
	owner.UID = rayctrl.OracleUID
	var cluster *rayv1.RayCluster
	if !j.call(object, "constructRayClusterForRayJob", func() (err error) {
		cluster, err = rayctrl.OracleConstructRayClusterForRayJob(owner, rj.Name+"-"+childSuffix)
		return err
	}) {
		return
	}
	cluster.TypeMeta = metav1.TypeMeta{APIVersion: "ray.io/v1", Kind: "RayCluster"}
	if j.child(cluster, " (created by "+object+")") && j.dashboardPort(cluster, object) {
		j.submitterJob(rj, cluster, object)
	}
}

// rayService follows RayServiceReconciler.Reconcile: validateRayService, then constructRayClusterForRayService.
func (j *judgement) rayService(rs *rayv1.RayService, object string) {
	if manager := utils.ManagedByExternalController(serviceManagedBy(rs)); manager != nil {
		j.ignore("spec.managedBy is " + *manager + ": the RayService controller skips it (ManagedByExternalController)")
		return
	}
	ok := j.call(object, "ValidateRayServiceMetadata", func() error { return utils.ValidateRayServiceMetadata(rs.ObjectMeta) }) &&
		j.call(object, "ValidateRayServiceSpec", func() error { return utils.ValidateRayServiceSpec(rs) })
	if !ok {
		return
	}
	// isZeroDowntimeUpgradeEnabled: with the RayServiceIncrementalUpgrade gate off only NewCluster upgrades, so
	// NewClusterWithIncrementalUpgrade disables upgrades altogether (spec changes are never rolled out).
	if us := rs.Spec.UpgradeStrategy; us != nil && us.Type != nil &&
		*us.Type == incrementalUpgradeType && !utils.IsIncrementalUpgradeEnabled(&rs.Spec) {
		j.operator.Inert = append(j.operator.Inert, Inert{Object: object, Field: "spec.upgradeStrategy.type",
			Why: "RayServiceIncrementalUpgrade gate is off: isZeroDowntimeUpgradeEnabled is false, upgrades are never rolled out"})
	}
	labels := map[string]string{}
	maps.Copy(labels, rs.Labels)
	labels[utils.RayOriginatedFromCRNameLabelKey] = rs.Name
	labels[utils.RayOriginatedFromCRDLabelKey] = utils.RayOriginatedFromCRDLabelValue(utils.RayServiceCRD)
	annotations := map[string]string{}
	maps.Copy(annotations, rs.Annotations)
	hash, err := utils.GenerateHashWithoutReplicasAndWorkersToDelete(rs.Spec.RayClusterSpec)
	if !j.call(object, "GenerateHashWithoutReplicasAndWorkersToDelete", func() error { return err }) {
		return
	}
	annotations[utils.HashWithoutReplicasAndWorkersToDeleteKey] = hash
	annotations[utils.NumWorkerGroupsKey] = strconv.Itoa(len(rs.Spec.RayClusterSpec.WorkerGroupSpecs))
	annotations[utils.KubeRayVersion] = utils.KUBERAY_VERSION
	cluster := &rayv1.RayCluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: "ray.io/v1", Kind: "RayCluster"},
		ObjectMeta: metav1.ObjectMeta{Name: rs.Name + "-" + childSuffix, Namespace: rs.Namespace, Labels: labels, Annotations: annotations},
		Spec:       *rs.Spec.RayClusterSpec.DeepCopy(),
	}
	if !j.child(cluster, " (created by "+object+")") || !j.dashboardPort(cluster, object) {
		return
	}
	// reconcileServices(ServingService): without a port named serve/serve-* the serve Service is never built.
	j.call(object, "common.BuildServeServiceForRayService", func() error {
		_, err := common.BuildServeServiceForRayService(context.Background(), *rs, *cluster)
		return err
	})
}

// dashboardPort: the RayJob and RayService controllers find the dashboard through a head Service port named
// "dashboard" (utils.FetchHeadServiceURL on the Service of common.BuildServiceForHeadPod); without it they
// requeue forever (no job submitted, no Serve config applied).
func (j *judgement) dashboardPort(cluster *rayv1.RayCluster, object string) bool {
	return j.call(object, "utils.FetchHeadServiceURL(dashboard)", func() error {
		svc, err := common.BuildServiceForHeadPod(context.Background(), *cluster, nil, nil)
		if err != nil {
			return err
		}
		for _, port := range svc.Spec.Ports {
			if port.Name == utils.DashboardPortName {
				return nil
			}
		}
		return fmt.Errorf("%s port is not found", utils.DashboardPortName)
	})
}

// child sends an object the operator creates through the API server, then through its own reconciler;
// false when either refuses it.
func (j *judgement) child(obj runtime.Object, createdBy string) bool {
	before := len(j.operator.Errors)
	raw, err := json.Marshal(obj)
	meta := obj.(metav1.Object)
	object := obj.GetObjectKind().GroupVersionKind().Kind + "/" + meta.GetName() + createdBy
	if !j.call(object, "encode", func() error { return err }) {
		return false
	}
	verdict, u := j.server.create(raw)
	if !j.call(object, "apiServer.create", func() error {
		if !verdict.Accepted {
			return fmt.Errorf("%v", verdict.Errors)
		}
		return nil
	}) {
		return false
	}
	// With the webhooks on, the operator's create goes through them too.
	for _, err := range runWebhooks(u).Errors {
		j.childWebhookErrors = append(j.childWebhookErrors, object+": "+err)
	}
	j.reconcile(u, createdBy)
	return len(j.operator.Errors) == before
}

func runWebhooks(u *unstructured.Unstructured) *WebhookVerdict {
	out := &WebhookVerdict{Errors: []string{}}
	ctx := context.Background()
	var err error
	switch u.GetKind() {
	case "RayCluster":
		obj := &rayv1.RayCluster{}
		if err = decode(u, obj); err == nil {
			_, err = (&webhooks.RayClusterWebhook{}).ValidateCreate(ctx, obj)
		}
	case "RayJob":
		obj := &rayv1.RayJob{}
		if err = decode(u, obj); err == nil {
			_, err = (&webhooks.RayJobWebhook{}).ValidateCreate(ctx, obj)
		}
	case "RayService":
		obj := &rayv1.RayService{}
		if err = decode(u, obj); err == nil {
			_, err = (&webhooks.RayServiceWebhook{}).ValidateCreate(ctx, obj)
		}
	}
	if err != nil {
		out.Errors = append(out.Errors, err.Error())
	}
	out.Accepted = len(out.Errors) == 0
	return out
}
