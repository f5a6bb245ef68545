#!/usr/bin/env bash
# golangci-lint for make lint (configured in .golangci.yml), built from the Go
# module proxy into a cache outside the work tree, as kubeconform is
# (.ci/deps.sh). Builds only when the cached binary is missing or another
# version; the first build takes a few minutes, later runs are instant.
# Prints nothing when the binary is already there. The Makefile's
# GOLANGCI_LINT is the same path.
set -euo pipefail

GOLANGCI_LINT_VERSION=v2.15.0
bin_dir="${XDG_CACHE_HOME:-$HOME/.cache}/hyscribe/bin"
if ! go version -m "$bin_dir/golangci-lint" 2>/dev/null | grep -q "github.com/golangci/golangci-lint/v2[[:space:]]*${GOLANGCI_LINT_VERSION}"; then
  echo "golangci-lint: building ${GOLANGCI_LINT_VERSION} into $bin_dir (a few minutes, once per machine)"
  GOBIN="$bin_dir" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@${GOLANGCI_LINT_VERSION}"
fi
