// This file is not KubeRay's: scripts/ensure-oracle copies it into package features of the oracle's build copy
// of the operator module (tools/kuberay-oracle/inject), so the oracle can read the unexported gate table.

package features

// OracleDefaultGates returns every feature gate this operator version registers (defaultFeatureGates) and its
// default, so the oracle reports exactly the version's own gates instead of a hand-kept list.
func OracleDefaultGates() map[string]bool {
	out := make(map[string]bool, len(defaultFeatureGates))
	for name, spec := range defaultFeatureGates {
		out[string(name)] = spec.Default
	}
	return out
}
