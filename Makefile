# The README's test command and .ci/run: `make check` (lint, test and
# sweeps). `make test` alone is the loop while changing code.
GO ?= go

# The sweeps: whole catalogue runs against the pinned real servers, side
# by side beside busy loops, against a slow server and against 10,000
# tools, the release build of every archive (a cross-compilation per
# platform) and the action's install from a release archive (a release
# build of its own). `make test` leaves them out, to stay a few minutes;
# `make check` (what CI runs) runs them after it. SWEEP_PKGS holds every
# package with a test SWEEPS names: the sweeps build and run only those
# test binaries, so that the release build runs beside the real servers
# instead of queueing behind the links of every other package's tests.
SWEEPS := ^(TestReal.*|TestTenThousandTools|TestReleaseArchives|TestActionInstall|TestSlowStartingDualEraServer|TestBusyWorker|TestGoSDKWithoutValidation|TestSlowServerSameVerdictsUnderLoad)$$
SWEEP_PKGS := ./conformance/ ./examples/ ./internal/fixtures/ntools/ ./scripts/

# The real-server test drives the pinned @modelcontextprotocol/server-everything;
# npm installs it from the lock file whenever the lock file is newer.
NPM_STAMP := testdata/npm/node_modules/.package-lock.json
XSD_DIR := testdata/xsd
XSD_STAMP := $(XSD_DIR)/.installed

.PHONY: all check lint test sweeps bench build deps debs

all: check

check: lint test sweeps

build:
	$(GO) build ./...

deps: $(NPM_STAMP) debs $(XSD_STAMP)
	$(GO) mod download

# Debian packages the tests use, installed when missing (CI runs as root;
# elsewhere through sudo): chromium, which the HTML report tests drive over
# the DevTools protocol (chromedp starts it itself, no chromedriver),
# libxml2-utils, whose xmllint validates the JUnit report, and jq, which
# the action's attestation step runs (as GitHub's runners have it).
debs:
	@missing=; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v xmllint >/dev/null || missing="$$missing libxml2-utils"; \
	command -v jq >/dev/null || missing="$$missing jq"; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing for the tests"; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# The real JUnit schemas (Jenkins' junit-10.xsd, Surefire's test report
# schema), from Debian source packages at pinned versions and checksums;
# the repository holds none of them.
$(XSD_STAMP): scripts/junit-xsds.sh
	bash scripts/junit-xsds.sh $(XSD_DIR)
	touch $@

$(NPM_STAMP): testdata/npm/package.json testdata/npm/package-lock.json
	npm ci --prefix testdata/npm --no-audit --no-fund

# The other release platforms are vetted too, test files included: their
# code is built from platform files (_unix.go, _windows.go) that a Linux
# vet never reads. (scripts/release.sh builds arm64 of each.) -trimpath:
# the release build's flag, so that the release archives' test finds
# these platforms' packages compiled.
lint:
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt: these files need formatting:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=windows $(GO) vet -trimpath ./...
	GOOS=darwin $(GO) vet -trimpath ./...

# -timeout: go test's 10-minute default is a hang detector; on a slow
# 2-core CI machine the conformance package alone can pass it, so the
# limit is set at the edge of CI's 20-minute budget instead.
# -parallel: a mutant or hostile-server run mostly waits on its server's
# answers and timeouts, so more runs than cores side by side keep the
# cores busy; the verdicts are built to hold under that load.
# The certificates the tests (and sweeps) look at in Chromium (page,
# screenshot, PDF) stay in test-artifacts/ for CI to keep.
test: deps
	mkdir -p test-artifacts
	MCPCONFORM_ARTIFACTS=$(CURDIR)/test-artifacts $(GO) tool gotestsum --format testname -- -count=1 -timeout 19m -parallel 6 -skip '$(SWEEPS)' ./...

sweeps: deps
	mkdir -p test-artifacts
	MCPCONFORM_ARTIFACTS=$(CURDIR)/test-artifacts $(GO) tool gotestsum --format testname -- -count=1 -timeout 15m -run '$(SWEEPS)' $(SWEEP_PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
