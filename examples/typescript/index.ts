// examples/yaml in TypeScript: a Namespace, a RayCluster in it (through the Namespace's name) and a RayJob on it.
import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import * as kuberay from "@pulumi-kuberay/kuberay";

const config = new pulumi.Config();
const provider = new k8s.Provider("k8s", { renderYamlToDirectory: config.get("renderDir") ?? "" });

const namespace = new k8s.core.v1.Namespace("ray-namespace", { metadata: { name: "ray" } }, { provider });

const cluster = new kuberay.RayCluster("shared", {
    namespace: namespace.metadata.name,
    spec: {
        rayVersion: "2.52.0",
        image: "rayproject/ray:2.52.0",
        headGroupSpec: { cpu: 1, memory: "4Gi" },
        workerGroupSpecs: [{ groupName: "cpu", cpu: 1, memory: "4Gi", replicas: 1, minReplicas: 1, maxReplicas: 2 }],
    },
}, { providers: [provider] });

// The RayJob runs on the cluster above: clusterSelector and namespace come from it.
const job = new kuberay.RayJob("batch", {
    cluster: cluster,
    spec: { entrypoint: "python -c 'import ray; ray.init()'" },
}, { providers: [provider] });

export const dashboard = cluster.dashboardUrl;
export const clientAddress = cluster.clientAddress;
export const jobCluster = job.clusterName;
