# chatbus — run `make help` for the targets.

SHELL := /bin/bash
.DEFAULT_GOAL := help

BIN := $(CURDIR)/bin
export PATH := $(BIN):$(PATH)
export GOTOOLCHAIN := local

# Pinned tool versions, installed into ./bin by `make tools`.
BUF_VERSION                := v1.75.0
PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
GRPCURL_VERSION            := v1.9.4
GRPC_HEALTH_PROBE_VERSION  := v0.4.62

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/chatbus/chatbus/internal/version.Version=$(VERSION)
GO_TEST_FLAGS ?= -race -count=1 -timeout 14m

# A stamp per tool and version: bumping a version reinstalls it.
STAMPS := $(BIN)/.buf-$(BUF_VERSION) $(BIN)/.protoc-gen-go-$(PROTOC_GEN_GO_VERSION) \
	$(BIN)/.protoc-gen-go-grpc-$(PROTOC_GEN_GO_GRPC_VERSION)

$(BIN)/.buf-$(BUF_VERSION):
	GOBIN=$(BIN) go install github.com/bufbuild/buf/cmd/buf@$(BUF_VERSION)
	@touch $@
$(BIN)/.protoc-gen-go-$(PROTOC_GEN_GO_VERSION):
	GOBIN=$(BIN) go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	@touch $@
$(BIN)/.protoc-gen-go-grpc-$(PROTOC_GEN_GO_GRPC_VERSION):
	GOBIN=$(BIN) go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	@touch $@
$(BIN)/.grpcurl-$(GRPCURL_VERSION):
	GOBIN=$(BIN) go install github.com/fullstorydev/grpcurl/cmd/grpcurl@$(GRPCURL_VERSION)
	@touch $@
$(BIN)/.grpc-health-probe-$(GRPC_HEALTH_PROBE_VERSION):
	GOBIN=$(BIN) go install github.com/grpc-ecosystem/grpc-health-probe@$(GRPC_HEALTH_PROBE_VERSION)
	@touch $@

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: tools
tools: $(STAMPS) $(BIN)/.grpcurl-$(GRPCURL_VERSION) $(BIN)/.grpc-health-probe-$(GRPC_HEALTH_PROBE_VERSION) ## Install pinned buf, protoc plugins, grpcurl, grpc-health-probe into ./bin

.PHONY: generate
generate: $(STAMPS) ## Generate code from the protos (local plugins only)
	buf generate

.PHONY: check-generate
check-generate: generate ## Regenerate and fail if the committed generated code differs
	@if [ -n "$$(git status --porcelain -- proto)" ]; then \
		echo "generated code is out of date; run 'make generate' and commit:"; \
		git status --porcelain -- proto; git diff --stat -- proto; exit 1; \
	fi

.PHONY: lint
lint: $(STAMPS) ## buf lint (STANDARD), buf format diff, go vet, gofmt
	buf lint
	buf format -d --exit-code
	go vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

.PHONY: build
build: ## Build supervisord and busctl into ./bin
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

.PHONY: run
run: build ## Build and run supervisord in the foreground (default profile and paths)
	$(BIN)/supervisord $(ARGS)

.PHONY: test
test: ## Run every test with the race detector
	go test $(GO_TEST_FLAGS) ./...
