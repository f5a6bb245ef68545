# hyscribe — see README.md. `make run` and `make test` do all set-up themselves.
SHELL := /bin/bash
GO ?= go
PKGS := ./...
DATA ?= ./data
# The Postgres the tests use (.ci/deps.sh starts it); each test makes its own
# schema in it. Unset it (make test HYSCRIBE_TEST_DATABASE_URL=) to skip them.
HYSCRIBE_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
export HYSCRIBE_TEST_DATABASE_URL

.PHONY: run build test test-short bdd bench lint deps fmt clean

## run: the whole service in one process on embedded defaults (SQLite, embedded Kafka, local uploads)
run:
	HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=$${HYSCRIBE_WEBHOOK_ALLOW_PRIVATE:-true} \
	HYSCRIBE_DATA_DIR=$${HYSCRIBE_DATA_DIR:-$(DATA)} \
	$(GO) run ./cmd/hyscribe serve

## build: the one binary, ./hyscribe
build:
	$(GO) build -o hyscribe ./cmd/hyscribe

## deps: install and start what the tests need on a fresh machine (kcat, Postgres)
deps:
	bash .ci/deps.sh

## test: every test, with the race detector, after installing what they need
test: deps
	$(GO) vet $(PKGS)
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

## test-short: the tests that need no outside server or tool
test-short:
	$(GO) test -short -count=1 $(PKGS)

## bdd: the godog scenarios only (features/*.feature)
bdd: deps
	$(GO) test -race -count=1 -v ./features/

## bench: Go benchmarks of the hot paths (Postgres ones included), then the API and
## pipeline under load (bench/run.sh: wrk, real processes); prints figures and
## rewrites its section of docs/performance.md
bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./domain/... ./adapters/... ./app/...
	bash bench/run.sh

## lint: vet, gofmt and the dependency rule (domain and ports import no adapter or framework)
lint:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) test -count=1 -run TestDependencyRule ./domain/

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf hyscribe $(DATA)
