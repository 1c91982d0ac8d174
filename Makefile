# The README's commands and .ci/run call these targets: `make lint test`.
GO ?= go

# The real-server test drives the pinned @modelcontextprotocol/server-everything;
# npm installs it from the lock file whenever the lock file is newer.
NPM_STAMP := testdata/npm/node_modules/.package-lock.json

.PHONY: all lint test bench build deps browser

all: lint test

build:
	$(GO) build ./...

deps: $(NPM_STAMP) browser
	$(GO) mod download

# The HTML report tests drive a real headless Chromium over the DevTools
# protocol (chromedp starts it itself, no chromedriver): the Debian package
# chromium, installed when missing (CI runs as root; elsewhere through sudo).
browser:
	@if ! command -v chromium >/dev/null; then \
	  echo "installing chromium for the HTML report tests"; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	fi

$(NPM_STAMP): testdata/npm/package.json testdata/npm/package-lock.json
	npm ci --prefix testdata/npm --no-audit --no-fund

lint:
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt: these files need formatting:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# -timeout: go test's 10-minute default is a hang detector; on a slow
# 2-core CI machine the conformance package alone can near it, so the
# limit is set inside CI's 20-minute budget instead.
test: deps
	$(GO) tool gotestsum --format testname -- -count=1 -timeout 15m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
