#!/usr/bin/env bash
# Go's encoding/json judges our documents: decodes every document pinned by
# tests/vectors/store_*.json into Go structs written from docs/STORE.md §6 and
# checks that Go re-encodes it to the same bytes. Installs Go (Debian's
# golang-go) when it is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v go >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go
fi
export GOFLAGS=-mod=mod GO111MODULE=off GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/store-go-cache}"
go run "$here/main.go" "$here/../../../tests/vectors"
