# shellcheck shell=bash
# scripts/lib/common.sh: what the ensure-* and setup scripts share, sourced (never run) after `set -euo pipefail`:
#
#   SCRIPT=ensure-foo; . "$HERE/lib/common.sh"
#
# SCRIPT names the script in every log line. What a script builds, where its cache entry lives and what names
# that entry (its cache key) stay in the script: nothing here takes part in an entry's name or digest except
# dir_sum, whose output must never change (cache entries built by earlier runs are named by it), and
# langhost_sum (our language hosts' sources: a change to them must be a new build).
# Nothing here writes to stdout except the functions whose job it is (json, moddir, served_dir, norm_version);
# progress goes to stderr.

: "${SCRIPT:?set SCRIPT=<the script name> before sourcing scripts/lib/common.sh}"

# ---- logging -------------------------------------------------------------------------------------------
log() { printf '[%s %s] %s\n' "$SCRIPT" "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
loud() { log "################################################################################"; log "$*"; log "################################################################################"; }

# usage: the script's header comment (from line 2 to the first line that is not a comment), without the `# `.
usage() { sed -n '2,/^[^#]/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
unknown_arg() { echo "$SCRIPT: unknown argument: $1 (try --help)" >&2; exit 1; }

# The PULUMI_KURAY_* spellings (a typo of earlier releases) are still read for this release, with a warning.
compat_env() {
  local old new
  for old in $(compgen -v PULUMI_KURAY_ || true); do
    new=PULUMI_KUBERAY_${old#PULUMI_KURAY_}
    [ -n "${!new+x}" ] || export "$new=${!old}"
    echo "$SCRIPT: $old is deprecated and will be ignored in the next release: use $new" >&2
  done
}

# ---- versions ------------------------------------------------------------------------------------------
# norm_version V [PREFIX]: v1.7.0 | 1.7.0 -> PREFIX1.7.0 (PREFIX "" or "v"); dies on anything but X.Y.Z.
norm_version() {
  local v=${1#v}
  [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "invalid operator version '$1' (expected e.g. ${2:-}1.7.0)"
  echo "${2:-}$v"
}
# version_ge A B: A >= B (sort -V; a leading v is ignored on both sides).
version_ge() { [ "$(printf '%s\n%s\n' "${2#v}" "${1#v}" | sort -V | sed -n 1p)" = "${2#v}" ]; }
# older_than A B: A < B.
older_than() { [ "${1#v}" != "${2#v}" ] && ! version_ge "$1" "$2"; }

# dir_sum DIR: the checksum of a folder's files (paths and contents), 16 hex digits. It names cache entries
# (ray-operator-vV-ref-<sha16>): never change what it reads or prints.
dir_sum() { (cd "$1" && find . -type f ! -name '*~' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16; }

# ---- cache entries -------------------------------------------------------------------------------------
# lock FD FILE WHAT: hold an flock on FILE through file descriptor FD (kept open by the calling shell until
# `exec FD>&-` or exit); when another run holds it, say so and wait.
lock() {
  local fd=$1 file=$2
  mkdir -p "$(dirname "$file")"
  eval "exec $fd>\"\$file\""
  if ! flock -n "$fd"; then
    log "another $SCRIPT is building $3; waiting for its lock"
    flock "$fd"
  fi
}
# replace_dir DIR: remove DIR and what a half-done install leaves beside it (DIR.partial, DIR.lock).
replace_dir() { rm -rf "$1" "$1.partial" "$1.lock"; }

# tee_stderr FILE: from here on, stderr also goes to FILE (appended); untee_stderr restores it and waits for
# the copy to be written.
tee_stderr() {
  exec 3>&2 2> >(tee -a "$1" >&3)
  TEE_PID=$!
}
untee_stderr() {
  exec 2>&3 3>&-
  wait "$TEE_PID" 2>/dev/null || true
}

# ---- the KubeRay operator's Go module and its reference copy ------------------------------------------
# The reference material (KUBERAY_REFERENCE_DIR, default ../shared beside the repository) holds the operator's
# module at the versions the module proxy refuses; ensure-kube builds the local operator from it, ensure-oracle
# the oracle.
OPERATOR_MOD=github.com/ray-project/kuberay/ray-operator
REF_ROOT=${KUBERAY_REFERENCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared}
# ref_dir VERSION (1.7.0 or v1.7.0): the operator module's folder in the reference material.
ref_dir() { echo "$REF_ROOT/kuberay/v${1#v}/ray-operator"; }
# ref_ok VERSION: is that folder there and really the operator module?
ref_ok() { [ -f "$(ref_dir "$1")/go.mod" ] && grep -qx "module $OPERATOR_MOD" "$(ref_dir "$1")/go.mod"; }

# ---- Go ------------------------------------------------------------------------------------------------
# find_go: true when a Go toolchain is on PATH, or in one of the usual places (then put on PATH).
find_go() {
  local g
  if ! command -v go >/dev/null 2>&1; then
    for g in /usr/local/go/bin/go /usr/lib/go/bin/go; do [ -x "$g" ] && PATH="$(dirname "$g"):$PATH" && break; done
  fi
  command -v go >/dev/null 2>&1
}
# go_env GOFLAG...: the build environment: the local toolchain only (never fetch another Go silently), no
# workspace, static binaries; the arguments are appended to GOFLAGS (e.g. -buildvcs=false -modcacherw).
go_env() {
  export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
  # The compiler and linker collect less often (they adjust only their starting heap themselves): a cold build is
  # CPU-bound on 2 cores, and k8s.io/client-go/kubernetes compiled in 133 s of CPU instead of 150 s (2026-12-08,
  # one pair); memory is not short here (24 GiB). Not part of Go's cache keys, so no cached build changes.
  export GOGC=${GOGC:-400}
  export GOFLAGS="${GOFLAGS:-} $*"
  export CGO_ENABLED=0
  export GOWORK=off
}
go_version() { go version | cut -d' ' -f3; }

# ---- this project's own language hosts (scripts/engine) ------------------------------------------------
# scripts/engine/pulumi-language-NAME/main.go (NAME: python, built by ensure-pulumi; nodejs and go, built by
# ensure-langhosts) and the package they share, scripts/engine/langhost: a small module of its own
# (offline.build/langhost, with offline.build/langhost/sdkgen for the hosts that generate SDKs), so that the three
# main packages import it by one path whatever their wrapper module.
ENGINE_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../engine" && pwd)
# langhost_sum NAME: 16 hex digits of the host's sources (its main.go, the shared module's go.mod and Go files).
langhost_sum() {
  (cd "$ENGINE_SRC" && find "pulumi-language-$1/main.go" langhost -type f \( -name '*.go' -o -name go.mod \) -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}
# langhost_put NAME DIR: the host's sources into the wrapper module in DIR (after mkwrapper, before go mod tidy):
# its main.go as DIR/cmd/pulumi-language-NAME, the shared package as DIR/langhost, required by the wrapper and
# replaced by that copy.
langhost_put() {
  [ -f "$ENGINE_SRC/pulumi-language-$1/main.go" ] || die "missing $ENGINE_SRC/pulumi-language-$1/main.go"
  mkdir -p "$2/cmd/pulumi-language-$1"
  cp "$ENGINE_SRC/pulumi-language-$1/main.go" "$2/cmd/pulumi-language-$1/main.go"
  rm -rf "$2/langhost" && cp -R "$ENGINE_SRC/langhost" "$2/langhost"
  (cd "$2" && go mod edit -require=offline.build/langhost@v0.0.0 -replace=offline.build/langhost=./langhost)
}

# json EXPR: evaluate a Python expression over d, the JSON document on stdin ({} when empty).
json() { python3 -c "import json,sys; t=sys.stdin.read(); d=json.loads(t) if t.strip() else {}; print($1)"; }
# moddir MOD@VER: the module's folder in the module cache (downloads it).
moddir() { go mod download -json "$1" | json 'd.get("Dir") or ""'; }

# preflight_modules ERRFILE MOD@VER...: are these exact module versions served? (metadata only, seconds)
# Logs each; false when any is not.
preflight_modules() {
  local errfile=$1 m bad=0
  shift
  mkdir -p "$(dirname "$errfile")"
  for m in "$@"; do
    if go list -m -json "$m" >/dev/null 2>"$errfile"; then
      log "preflight: served $m"
    else
      log "preflight: NOT SERVED $m: $(tr '\n' ' ' < "$errfile" | cut -c1-300)"
      bad=1
    fi
  done
  return "$bad"
}

# served_dir MOD@VER -> the module's folder (downloads it); false when the proxy refuses or does not know the
# version (403/404/410); a retry, then death, on any other error (network): never a fallback from a hiccup.
served_dir() {
  local out err try
  for try in 1 2 3; do
    out=$(cd /tmp && go mod download -json "$1" 2>/dev/null) || true
    err=$(json 'd.get("Error") or ""' <<<"$out")
    if [ -z "$err" ]; then json 'd.get("Dir") or ""' <<<"$out"; return 0; fi
    if grep -qE '(403|404|410)|not found|unknown revision|invalid version' <<<"$err"; then return 1; fi
    log "asking the Go module proxy for $1 failed (try $try of 3): $(cut -c1-300 <<<"$err")"
    sleep $((try * 5))
  done
  die "the Go module proxy did not answer for $1 (see above); nothing is built from a guess"
}

# mkwrapper ANCHOR@VER DIR MODULE [--sibling MOD@VER]... [--require MOD@VER]... [--staging vX] [--tool PKG]...
# A wrapper go.mod in DIR for building ANCHOR's packages when its own go.mod has local replaces: the go,
# godebug and exclude lines and the non-local replaces are copied; a local replace of a --sibling becomes a
# requirement at its given version; ./staging/src/k8s.io/X becomes k8s.io/X => k8s.io/X <staging> (Kubernetes);
# etcd's FORBIDDEN_DEPENDENCY guards are dropped; anything else unmapped stops. --tool keeps a main package of
# another module in the build list (go mod tidy would drop it). False (and a hint) when the proxy refuses ANCHOR.
mkwrapper() {
  local anchor=$1 dir=$2 module=$3 gomod
  shift 3
  gomod=$(go mod download -json "$anchor" | json 'd.get("GoMod") or ""') || true
  if [ -z "$gomod" ]; then
    log "the Go module proxy refused or failed $anchor. Versions it serves can be checked with: go list -m -json $anchor"
    return 1
  fi
  mkdir -p "$dir"
  python3 - "$SCRIPT" "$gomod" "$anchor" "$dir/go.mod" "$module" "$@" <<'PY'
import json, subprocess, sys
script, gomod, anchor, out, module, *rest = sys.argv[1:]
up = json.loads(subprocess.run(["go", "mod", "edit", "-json", gomod], check=True, capture_output=True, text=True).stdout)
def split(s):
    p, _, v = s.rpartition("@"); return p, v
siblings, requires, tools, staging = {}, [split(anchor)], [], None
for flag, val in zip(rest[::2], rest[1::2]):
    if flag == "--sibling": siblings.update([split(val)])
    elif flag == "--require": requires.append(split(val))
    elif flag == "--staging": staging = val
    elif flag == "--tool": tools.append(val)
    else: sys.exit(f"mkwrapper: unknown option {flag}")
def need(p, v):
    if all(q != p for q, _ in requires):
        requires.append((p, v))
replaces = []
for r in up.get("Replace") or []:
    old, new = r["Old"], r["New"]
    old_s = old["Path"] + (" " + old["Version"] if old.get("Version") else "")
    if new.get("Version"):
        replaces.append(f"{old_s} => {new['Path']} {new['Version']}")
    elif "FORBIDDEN_DEPENDENCY" in new["Path"]:
        continue
    elif new["Path"].startswith("./staging/src/") and staging:
        replaces.append(f"{old['Path']} => {old['Path']} {staging}")
    elif old["Path"] in siblings:
        need(old["Path"], siblings[old["Path"]])
    else:
        sys.exit(f"unmapped local replace {old_s} => {new['Path']} in {anchor}'s go.mod")
for p, v in siblings.items():
    need(p, v)
lines = [f"// generated by scripts/{script} from {anchor}", f"module {module}", "", f"go {up['Go']}", ""]
lines += [f"godebug {g['Key']}={g['Value']}" for g in up.get("Godebug") or []]
lines += ["require ("] + [f"\t{p} {v}" for p, v in requires] + [")", ""]
if replaces:
    lines += ["replace ("] + [f"\t{x}" for x in replaces] + [")", ""]
lines += [f"exclude {e['Path']} {e['Version']}" for e in up.get("Exclude") or []]
if tools:
    lines += ["", "tool ("] + [f"\t{t}" for t in tools] + [")"]
open(out, "w").write("\n".join(lines) + "\n")
PY
}
