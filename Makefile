# The README's commands and .ci/run call these targets.
GO ?= go

.PHONY: all lint test bench build

all: lint test

build:
	$(GO) build ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt: these files need formatting:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

test:
	$(GO) tool gotestsum --format testname -- -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
