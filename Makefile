# Every routine task in one place; `make help` lists them. The scripts
# behind them live in .ci/ (CI runs .ci/run).

GO    ?= go
BIN   ?= bin/commerce
# make bench PKG=./promotion/engine/ BENCH=Evaluate
PKG   ?= ./...
BENCH ?= .
SAMPLE ?= ../shared/data/microbase-sample

.PHONY: help build serve test test-race test-postgres load token lint tools bench bench-journey bench-scale bench-growth walkthrough ci clean openapi docs-assets

help: ## list the targets
	@awk 'BEGIN { FS = ":.*## " } /^[a-z-]+:.*## / { printf "  %-14s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

build: ## build the binary into bin/commerce
	$(GO) build -o $(BIN) ./cmd/commerce

serve: ## run the whole service on localhost:8080, data in ./data/ (README: the two commands)
	$(GO) run ./cmd/commerce serve

test: ## the tests on SQLite (PostgreSQL and NATS tests skip unless configured)
	$(GO) test ./...

test-race: ## the tests on SQLite with the race detector
	$(GO) test -race ./...

test-postgres: ## the whole suite with -race on SQLite, PostgreSQL and NATS, on a fresh database (as CI)
	bash .ci/test-postgres

load: ## load the sample data into a running service (see README)
	$(GO) run ./cmd/commerce load --fix-spelling $(SAMPLE)

token: ## print an admin token for the local service
	@$(GO) run ./cmd/commerce token --scope admin

lint: ## go mod tidy -diff, gofmt, go vet, staticcheck and govulncheck (pinned in .ci/lib.sh)
	bash .ci/lint

tools: ## install the pinned staticcheck and govulncheck (lint does it on first use)
	bash -c '. .ci/lib.sh && tool "$$STATICCHECK" && tool "$$GOVULNCHECK"'

bench: ## the Go benchmarks (PKG=./promotion/engine/ BENCH=Evaluate to narrow; BENCHMARKS.md has the numbers)
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem $(PKG)

bench-journey: ## the whole checkout under load on SQLite and PostgreSQL (BENCHMARKS.md "The whole checkout")
	bash .ci/bench-journey

bench-growth: ## generated shops of 10k and 100k products on SQLite: startup, memory, reads, writes (SIZES="10000 100000 1000000" STORES="sqlite pg"; BENCHMARKS.md "Growth")
	nice -n 10 bash .ci/bench-growth $(SIZES)

bench-scale: ## 1, 2 and 3 serve processes on one PostgreSQL, each capped at 0.3 core (root; BENCHMARKS.md "Adding instances")
	bash .ci/bench-scale

walkthrough: ## run README's walk-through against a freshly built binary and the sample data
	bash .ci/walkthrough

ci: ## what CI runs: lint, the suite on both stores, a smoke test, the walk-through
	bash .ci/run

openapi: ## regenerate the API document's files: doc comments, clients/typescript/openapi.json and commerce.d.ts
	$(GO) generate ./rpc
	UPDATE_OPENAPI=1 $(GO) test -count=1 -run '^TestDocumentGolden$$' ./testkit/apitest
	cd clients/typescript && npm ci --no-audit --no-fund && npm run generate && npm run check

docs-assets: ## copy Swagger UI (swagger-ui-dist, pinned in clients/typescript/package.json) into rpc/docs for /docs
	cd clients/typescript && npm ci --no-audit --no-fund
	for f in swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css; do \
		cp clients/typescript/node_modules/swagger-ui-dist/$$f rpc/docs/$$f; done
	cp clients/typescript/node_modules/swagger-ui-dist/LICENSE rpc/docs/LICENSE.swagger-ui
	cp clients/typescript/node_modules/swagger-ui-dist/NOTICE rpc/docs/NOTICE.swagger-ui

clean: ## remove bin/
	rm -rf bin
