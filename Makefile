# pushagent — the two commands of README.md: `make demo` and `make test`.
SWIFT ?= swift
APT_PACKAGES := libcurl4-openssl-dev libsystemd-dev libsqlite3-dev pkg-config oathtool python3-cryptography
BIN := .build/debug

.PHONY: all deps build test demo demo-check bench clean

all: build

# Installs the system packages the build and the tests need (Debian/Ubuntu), only those missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

# Every test: unit, the HTTP client against a local server, the relay, and end to end with the real processes;
# then the demo, approved automatically, so the README's demo command is tested too.
test: build
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	scripts/demo.sh --auto

demo: build
	scripts/demo.sh

bench: deps
	$(SWIFT) build -c release
	.build/release/pushbench --bin-dir .build/release

clean:
	rm -rf .build demo-state
