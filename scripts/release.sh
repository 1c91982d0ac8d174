#!/usr/bin/env bash
# Builds the release archives of mcpconform with plain `go build` cross-
# compilation (docs/install.md says why not GoReleaser):
#
#   OUTDIR/mcpconform_VERSION_OS_ARCH.tar.gz   linux and darwin
#   OUTDIR/mcpconform_VERSION_OS_ARCH.zip      windows
#   OUTDIR/mcpconform_VERSION_OS_ARCH.cdx.json CycloneDX SBOM of that binary
#   OUTDIR/SHA256SUMS                          sha256sum lines for all of them
#
# VERSION is the tag without its v. Each archive holds the binary
# (mcpconform, or mcpconform.exe), README.md and LICENSE when there is one,
# at its top level. The binaries are static (CGO_ENABLED=0), built with
# -trimpath and stamped with the tag (-X main.releaseVersion); archive
# entries are sorted, owned by 0:0 and dated at the commit's time
# (SOURCE_DATE_EPOCH), so the same commit and Go toolchain give the same
# bytes.
#
# Usage: scripts/release.sh vX.Y.Z [OUTDIR]
# Environment: TARGETS (default: linux, darwin and windows, each amd64 and
#              arm64), SOURCE_DATE_EPOCH (default: the time of the commit
#              at HEAD).
# Needs Go, GNU tar, gzip, sha256sum (or shasum), and zip for windows.
set -euo pipefail

die() { echo "release: $*" >&2; exit 1; }

version=${1:-}
out=${2:-dist}
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
  die "usage: scripts/release.sh vX.Y.Z [OUTDIR] (got version '${version}')"
targets=${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
tar --version 2>/dev/null | grep -q 'GNU tar' || die "GNU tar is needed (for --sort and --mtime)"
if [[ " $targets " == *" windows/"* ]]; then
  command -v zip >/dev/null || die "zip is needed for the windows archives"
fi
if command -v sha256sum >/dev/null; then sha256=(sha256sum); else sha256=(shasum -a 256); fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/mcpconform_* "$out/SHA256SUMS"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

go build -o "$stage/sbom" ./scripts/sbom

# One target's archive and SBOM. The targets build side by side: each
# build waits in turns on its own compiles and its single-threaded link,
# so together they keep every core busy; no two share a build action.
archive() {
  local os=${1%/*} arch=${1#*/}
  local name=mcpconform_${version#v}_${os}_${arch}
  local dir=$stage/$name exe=mcpconform
  mkdir -p "$dir"
  [ "$os" = windows ] && exe=mcpconform.exe
  # -buildvcs=auto: the commit goes into the build information wherever
  # git knows it, whatever GOFLAGS says.
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=auto \
    -ldflags "-s -w -buildid= -X main.releaseVersion=$version" \
    -o "$dir/$exe" ./cmd/mcpconform
  cp README.md "$dir/"
  if [ -f LICENSE ]; then cp LICENSE "$dir/"; fi
  chmod 0755 "$dir/$exe"
  "$stage/sbom" -name mcpconform -version "$version" -time "$epoch" "$dir/$exe" >"$out/$name.cdx.json"
  touch -d "@$epoch" "$dir"/*
  local files
  mapfile -t files < <(cd "$dir" && ls -A | LC_ALL=C sort)
  if [ "$os" = windows ]; then
    # zip stores local times: UTC makes them the same everywhere.
    (cd "$dir" && TZ=UTC zip -q -X -D "$out/$name.zip" "${files[@]}")
  else
    tar -C "$dir" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
      --format=ustar -cf - "${files[@]}" | gzip -n -9 >"$out/$name.tar.gz"
  fi
}

pids=()
for target in $targets; do
  archive "$target" >"$stage/${target/\//_}.log" 2>&1 &
  pids+=($!)
done
failed=0
set -- $targets
for pid in "${pids[@]}"; do
  target=$1
  shift
  if wait "$pid"; then
    cat "$stage/${target/\//_}.log"
    echo "release: mcpconform_${version#v}_${target/\//_}"
  else
    cat "$stage/${target/\//_}.log" >&2
    echo "release: $target failed" >&2
    failed=1
  fi
done
[ "$failed" = 0 ] || die "not every target built"

(cd "$out" && "${sha256[@]}" mcpconform_* | LC_ALL=C sort -k 2 >SHA256SUMS)
echo "release: $out/SHA256SUMS"
