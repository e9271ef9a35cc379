// examples/yaml in Go, and a RayService: a RayCluster in namespace ray, a RayJob on it (clusterSelector and namespace
// come from the cluster) and a RayService beside them. The components' outputs are read back in Go and exported.
// (No Namespace object: pulumi-kubernetes' core/v1 package is most of a cold build's time, and the Ray objects are
// the same without it.)
package main

import (
	"net/url"

	kuberay "github.com/pulumi-kuberay/pulumi-kuberay/sdk/go/kuberay"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// The Serve applications of the RayService (serveConfigV2, as a YAML string).
const serveConfig = `applications:
  - name: fruit_app
    import_path: fruit.deployment_graph
    route_prefix: /fruit
`

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		k8s, err := kubernetes.NewProvider(ctx, "k8s", &kubernetes.ProviderArgs{
			RenderYamlToDirectory: pulumi.String(cfg.Get("renderDir")),
		})
		if err != nil {
			return err
		}
		cluster, err := kuberay.NewRayCluster(ctx, "shared", &kuberay.RayClusterArgs{
			Namespace: pulumi.String("ray"),
			Spec: &kuberay.RayClusterSpecArgs{
				RayVersion:    pulumi.String("2.52.0"),
				Image:         pulumi.String("rayproject/ray:2.52.0"),
				HeadGroupSpec: &kuberay.HeadGroupSpecArgs{Cpu: pulumi.Int(1), Memory: pulumi.String("4Gi")},
				WorkerGroupSpecs: kuberay.WorkerGroupSpecArray{&kuberay.WorkerGroupSpecArgs{
					GroupName: pulumi.String("cpu"), Cpu: pulumi.Int(1), Memory: pulumi.String("4Gi"),
					Replicas: pulumi.Int(1), MinReplicas: pulumi.Int(1), MaxReplicas: pulumi.Int(2),
				}},
			},
		}, pulumi.Providers(k8s))
		if err != nil {
			return err
		}

		// The RayJob runs on the cluster above: clusterSelector and namespace come from it.
		job, err := kuberay.NewRayJob(ctx, "batch", &kuberay.RayJobArgs{
			Cluster: cluster,
			Spec: &kuberay.RayJobSpecArgs{
				Entrypoint: pulumi.String("python -c 'import ray; ray.init()'"),
			},
		}, pulumi.Providers(k8s))
		if err != nil {
			return err
		}

		service, err := kuberay.NewRayService(ctx, "serve", &kuberay.RayServiceArgs{
			Namespace: pulumi.String("ray"),
			Spec: &kuberay.RayServiceSpecArgs{
				ServeConfigV2: pulumi.String(serveConfig),
				RayClusterConfig: &kuberay.RayClusterSpecArgs{
					RayVersion:    pulumi.String("2.52.0"),
					Image:         pulumi.String("rayproject/ray:2.52.0"),
					HeadGroupSpec: &kuberay.HeadGroupSpecArgs{Cpu: pulumi.Int(1), Memory: pulumi.String("4Gi")},
				},
			},
		}, pulumi.Providers(k8s))
		if err != nil {
			return err
		}

		ctx.Export("dashboard", cluster.DashboardUrl)
		ctx.Export("clientAddress", cluster.ClientAddress)
		ctx.Export("jobCluster", job.ClusterName)
		ctx.Export("serveService", service.ServeServiceName)
		ctx.Export("serviceDashboard", service.DashboardUrl)

		// The outputs read in Go: the dashboard's host and port, and the status outputs, which stay empty until
		// KubeRay reports a status (never, when the objects are only rendered to a directory).
		ctx.Export("dashboardHost", cluster.DashboardUrl.ApplyT(func(dashboard string) (string, error) {
			parsed, err := url.Parse(dashboard)
			if err != nil {
				return "", err
			}
			return parsed.Host, nil
		}))
		reported := func(value *string) string {
			if value == nil {
				return "not reported"
			}
			return *value
		}
		ctx.Export("jobStatus", job.JobStatus.ApplyT(reported))
		ctx.Export("jobDeploymentStatus", job.JobDeploymentStatus.ApplyT(reported))
		ctx.Export("clusterDiagnosis", cluster.Diagnosis.ApplyT(reported))
		return nil
	})
}
