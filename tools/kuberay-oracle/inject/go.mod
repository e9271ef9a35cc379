// Not a module to build: the files under inject/ are compiled inside the oracle's build copy of the KubeRay
// operator module (scripts/ensure-oracle copies inject/<package path>/*.go there). This go.mod only keeps
// `go build ./...` and `go vet ./...` of tools/kuberay-oracle from treating them as packages of the oracle.
module github.com/pulumi-kuberay/tools/kuberay-oracle/inject

go 1.25.0
