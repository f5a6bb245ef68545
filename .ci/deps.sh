#!/usr/bin/env bash
# Installs the outside tools the tests use (kcat, Postgres, ClickHouse, MinIO,
# Chromium, promtool, kubeconform)
# on a fresh Debian machine, and starts the servers they need unless already
# running. Idempotent; quiet when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
apt_updated=""
# Every apt-get waits up to 10 minutes for the dpkg and list locks (an
# unattended upgrade or another install holds them) instead of failing at once.
apt_get() { $SUDO apt-get -o DPkg::Lock::Timeout=600 "$@"; }
apt_install() {
  echo "deps: installing $* from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "$apt_updated" ]; then apt_get update -qq >/dev/null; apt_updated=1; fi
  apt_get install -y -qq "$@" >/dev/null
}

need_pkgs=()
command -v kcat >/dev/null 2>&1 || need_pkgs+=(kcat)
command -v curl >/dev/null 2>&1 || need_pkgs+=(curl)
# The README's curl session, run verbatim by cmd/hyscribe/cli, reads answers with jq.
command -v jq >/dev/null 2>&1 || need_pkgs+=(jq)
# policy-rc.d may refuse to start the packaged ClickHouse service: that is
# fine, .ci/clickhouse.sh starts the tests' own server below.
command -v clickhouse-server >/dev/null 2>&1 || need_pkgs+=(clickhouse-server)
command -v clickhouse-client >/dev/null 2>&1 || need_pkgs+=(clickhouse-client)
# The web application's browser tests drive Debian's Chromium (headless).
[ -x /usr/bin/chromium ] || need_pkgs+=(chromium)
# promtool checks deploy/prometheus/ (alert rules) and /metrics' output.
command -v promtool >/dev/null 2>&1 || need_pkgs+=(prometheus)
# adapters/mp3's decoder is held to Debian's ffmpeg's PCM on files LAME
# encodes (TestDecodeMatchesFFmpeg), and its billing test cat-joins LAME files.
command -v ffmpeg >/dev/null 2>&1 || need_pkgs+=(ffmpeg)
command -v lame >/dev/null 2>&1 || need_pkgs+=(lame)
# The e-mail tests send through a real SMTP server, Debian's aiosmtpd.
/usr/bin/python3 -c 'import aiosmtpd' >/dev/null 2>&1 || need_pkgs+=(python3-aiosmtpd)
((${#need_pkgs[@]} == 0)) || apt_install "${need_pkgs[@]}"

# Postgres on 127.0.0.1:5432, user postgres, trust auth over TCP from
# 127.0.0.1: what HYSCRIBE_TEST_DATABASE_URL (Makefile) names.
pg_answers() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }
pg_trusts() { psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -w -Atqc 'SELECT 1' >/dev/null 2>&1; }
pg_version() { ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1; }

# The first matching pg_hba.conf line wins, so the trust line goes first;
# it is added once.
pg_trust_local_tcp() {
  local hba="/etc/postgresql/$1/main/pg_hba.conf"
  [ -f "$hba" ] || return 0
  if ! grep -qE '^host[[:space:]]+all[[:space:]]+postgres[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
    echo "deps: allowing user postgres from 127.0.0.1 without a password in $hba"
    $SUDO sed -i '1i host all postgres 127.0.0.1/32 trust  # added by hyscribe .ci/deps.sh for tests' "$hba"
    return 1 # changed
  fi
}

if ! pg_answers; then
  if [ -z "$(pg_version)" ] || ! command -v pg_ctlcluster >/dev/null 2>&1; then
    apt_install postgresql
  fi
  v="$(pg_version)"
  changed=""
  pg_trust_local_tcp "$v" || changed=1
  if pg_answers; then # the package's install script may have started it
    [ -z "$changed" ] || $SUDO pg_ctlcluster --skip-systemctl-redirect "$v" main reload
  else
    echo "deps: starting Postgres $v"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$v" main start
  fi
  for _ in $(seq 1 60); do pg_answers && break; sleep 0.5; done
  pg_answers || { echo "deps: Postgres did not start on 127.0.0.1:5432" >&2; exit 1; }
fi
if command -v psql >/dev/null 2>&1 && ! pg_trusts; then
  v="$(pg_version)"
  if [ -n "$v" ] && ! pg_trust_local_tcp "$v"; then
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$v" main reload
    sleep 1
  fi
  pg_trusts || { echo "deps: cannot connect to Postgres on 127.0.0.1:5432 as postgres without a password" >&2; exit 1; }
fi

go mod download
bash .ci/clickhouse.sh

# MinIO for the S3 upload tests (built once from the module proxy, cached).
bash .ci/minio.sh build

# kubeconform lints deploy/k8s against the Kubernetes schemas kept in
# deploy/k8s/schemas; built from the Go module proxy into a cache outside
# the work tree (the Makefile's HYSCRIBE_TEST_KUBECONFORM).
KUBECONFORM_VERSION=v0.8.0
kc_bin="${XDG_CACHE_HOME:-$HOME/.cache}/hyscribe/bin"
if ! go version -m "$kc_bin/kubeconform" 2>/dev/null | grep -q "github.com/yannh/kubeconform[[:space:]]*${KUBECONFORM_VERSION}"; then
  echo "deps: building kubeconform ${KUBECONFORM_VERSION} into $kc_bin"
  GOBIN="$kc_bin" go install "github.com/yannh/kubeconform/cmd/kubeconform@${KUBECONFORM_VERSION}"
fi
# kube-score checks deploy/k8s for what a schema cannot see (probes,
# resources, selectors, network policies); same cache (HYSCRIBE_TEST_KUBESCORE).
KUBESCORE_VERSION=v1.20.0
if ! go version -m "$kc_bin/kube-score" 2>/dev/null | grep -q "github.com/zegl/kube-score[[:space:]]*${KUBESCORE_VERSION}"; then
  echo "deps: building kube-score ${KUBESCORE_VERSION} into $kc_bin"
  GOBIN="$kc_bin" go install "github.com/zegl/kube-score/cmd/kube-score@${KUBESCORE_VERSION}"
fi

# npm tools of the integrators' tests, run with Debian's node: the official
# Standard Webhooks library verifies our deliveries, and Redocly's CLI lints
# the OpenAPI document. Installed once into a cache outside the work tree
# (HYSCRIBE_TEST_NPM in the Makefile), never into the repository.
[ -x /usr/bin/node ] && command -v npm >/dev/null 2>&1 || apt_install nodejs npm
npm_dir="${HYSCRIBE_TEST_NPM:-${XDG_CACHE_HOME:-$HOME/.cache}/hyscribe/npm}"
npm_pkgs=(standardwebhooks@1.1.1 @redocly/cli@2.77.0 axe-core@4.14.1) # axe-core: the browser tests' accessibility check
npm_have() { # every package at its pinned version
  local p name version
  for p in "${npm_pkgs[@]}"; do
    name="${p%@*}" version="${p##*@}"
    grep -q "\"version\": \"$version\"" "$npm_dir/node_modules/$name/package.json" 2>/dev/null || return 1
  done
}
if ! npm_have; then
  echo "deps: installing ${npm_pkgs[*]} into $npm_dir"
  mkdir -p "$npm_dir"
  npm install --silent --no-audit --no-fund --prefix "$npm_dir" "${npm_pkgs[@]}" >/dev/null
fi

# The oldest Go the client module claims (client/go.mod's go directive):
# make test builds and tests client/ and client/compat with it, with
# GOTOOLCHAIN=local. golang.org/dl's go1.22.12 fetches from dl.google.com,
# which CI may not reach; the same release is on the Go module proxy as the
# module golang.org/toolchain, which is what GOTOOLCHAIN=go1.22.12 fetches
# (it also makes the binaries executable in the module cache).
GO_OLDEST_VERSION=go1.22.12
go_oldest="$(go env GOMODCACHE)/golang.org/toolchain@v0.0.1-${GO_OLDEST_VERSION}.$(go env GOOS)-$(go env GOARCH)/bin/go"
if ! GOTOOLCHAIN=local "$go_oldest" version 2>/dev/null | grep -q "${GO_OLDEST_VERSION} "; then
  echo "deps: fetching ${GO_OLDEST_VERSION} from the module proxy"
  GOTOOLCHAIN="${GO_OLDEST_VERSION}" go version >/dev/null
fi

# golangci-lint for make lint (.golangci.yml), built from the Go module proxy
# into the same cache as kubeconform; the script holds the pinned version.
bash .ci/golangci-lint.sh
