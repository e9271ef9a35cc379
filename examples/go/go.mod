module kuberay-go-example

go 1.24

require (
	github.com/pulumi-kuberay/pulumi-kuberay/sdk/go v0.0.0
	github.com/pulumi/pulumi-kubernetes/sdk/v4 v4.25.0
	github.com/pulumi/pulumi/sdk/v3 v3.259.0
)

// The SDK `pulumi package gen-sdk ../../provider --language go --out sdks` writes (a module of its own).
replace github.com/pulumi-kuberay/pulumi-kuberay/sdk/go => ./sdks/go
