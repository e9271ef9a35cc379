// The package this project's language hosts share (scripts/engine/pulumi-language-{go,nodejs,python}).
// scripts/lib/common.sh (langhost_put) copies it beside a host's main.go in the host's wrapper module, which
// requires it and replaces it by that copy. It lists no requirements of its own: the wrapper's build list (pulumi
// pkg/v3 and sdk/v3 at the CLI's version, and what they require) provides what it imports.
module offline.build/langhost

go 1.23
