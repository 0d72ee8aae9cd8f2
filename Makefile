# pushagent — the two commands of README.md (`make demo`, `make test`), and installing it (`make install`, `make deb`).
SWIFT ?= swift
# python3-venv: the real privacyIDEA server and firebase-admin SDK the tests install from PyPI; python3-cryptography
# checks Hyphen's device-key signatures independently; libzbar/libpng/libjpeg: `pushctl enroll --qr`, and
# qrencode/netpbm/libjpeg-turbo-progs make its test pictures; systemd-container: systemd-nspawn, which boots the
# systemd that `make test-systemd` installs the .deb into (curl and sqlite3 are what that test inspects the relay
# and the agent's state with); libpam0g-dev: the PAM headers pushagentd checks a password for a verify approval with;
# polkitd (with pkttyagent): the polkit that `make test-systemd` approves a verify approval through;
# xvfb, dbus-daemon/dbus-bin, dunst and fonts-dejavu-core: the desktop `pushctl notify` is tested on (a notification
# server with actions, on a private session bus); postgresql and nginx: the relay on PostgreSQL, several instances
# behind a load balancer (each test runs its own private cluster and nginx, never the system services); openssl: the
# test certificate of pushsim's FCM emulator (MCS over TLS), which PyPI firebase-messaging is tested against.
APT_PACKAGES := libcurl4-openssl-dev libsystemd-dev libsqlite3-dev pkg-config oathtool python3-venv python3-cryptography \
	libzbar-dev libpng-dev libjpeg62-turbo-dev qrencode netpbm libjpeg-turbo-progs systemd-container curl sqlite3 \
	libpam0g-dev xvfb dbus-daemon dbus-bin dunst fonts-dejavu-core postgresql nginx openssl tinyproxy polkitd
BIN := .build/debug

# Installation layout (DESTDIR-aware). CONFIG=release links the Swift runtime statically, so the binaries need
# only the system libraries the .deb depends on; CONFIG=debug (what the tests install) needs the toolchain's.
CONFIG ?= release
SWIFT_BUILD_FLAGS_release := --static-swift-stdlib
SWIFT_BUILD_FLAGS_debug :=
# Release binaries are installed stripped (about 40 % smaller); debug ones keep their symbols for the tests.
INSTALL_STRIP_release := -s
INSTALL_STRIP_debug :=
PREFIX ?= /usr
SYSCONFDIR ?= /etc
DESTDIR ?=
BINDIR := $(PREFIX)/bin
SYSTEMD_DIR := $(PREFIX)/lib/systemd
MANDIR := $(PREFIX)/share/man
DOCDIR := $(PREFIX)/share/doc/pushagent
PROGRAMS := pushagentd pushctl pushrelay pushsim
BUILD_DIR = .build/$(CONFIG)
GENERATED = .build/install-$(CONFIG)

VERSION := $(shell sed -n 's/.*static let string = "\(.*\)"/\1/p' Sources/ControlWire/PushAgentVersion.swift)
DEB_ARCH = $(shell dpkg --print-architecture)
# The release package is the one the README has users install. A debug package (make test-systemd's) is a test
# build: its programs load the Swift runtime from the toolchain that built them, which no Depends can name, so it has
# a name of its own (Conflicts with the release one), its own directory, and says so in its description.
DEB_PACKAGE_release := pushagent
DEB_PACKAGE_debug := pushagent-debug-test
DEB_DIR_release := .build
DEB_DIR_debug := .build/test-package
DEB_PACKAGE = $(DEB_PACKAGE_$(CONFIG))
DEB_DIR = $(DEB_DIR_$(CONFIG))
DEB_ROOT = $(DEB_DIR)/deb-root
DEB_FILE = $(DEB_DIR)/$(DEB_PACKAGE)_$(VERSION)_$(DEB_ARCH).deb
# Where the debug programs load the Swift runtime from (the first entry of their RUNPATH).
SWIFT_RUNTIME_DIR = $(shell readelf -d $(BUILD_DIR)/pushagentd | sed -n 's/.*RUNPATH.*\[\([^:]*\).*/\1/p')
# none for the tests' debug package (fast to build and install), xz for a release package.
DEB_COMPRESS ?= xz

.PHONY: all deps build proto man man-check test test-systemd demo demo-check bench bench-relay bench-relay-smoke bench-relay-cluster bench-relay-cluster-smoke bench-webpush bench-webpush-smoke soak generated install install-files deb clean

all: build

# Installs the system packages the build and the tests need (Debian/Ubuntu), only those missing, and starts none of
# their system services.
deps:
	@scripts/install-packages.sh $(APT_PACKAGES)

build: deps
	$(SWIFT) build

# Every test: unit, the HTTP client against a local server, the relay, and end to end with the real processes;
# then the soaks, the demo (approved automatically, so the README's demo command is tested too), the benchmarks'
# smoke runs and the installed package in a booted systemd, which mostly wait on processes and timers: the fuzz
# targets' build (a release build of its own, minutes of CPU) runs meanwhile, its output in FUZZ_BUILD_LOG, printed
# if it fails; then their smoke run. The run ends with the Swift test summary again, for CI to read last. The PyPI
# clients the interop tests drive are installed before the tests start: in a fresh clone pip ran inside a test's
# 120 s wait, on a machine loaded by the whole suite, and once missed it.
TEST_LOG := .build/swift-test.log
FUZZ_BUILD_LOG := .build/fuzz-build.log
test: build
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory man-check
	scripts/fcm-receiver.sh install
	scripts/firebase-admin-send.sh install
	scripts/webpush-send.sh install
	scripts/unifiedpush-connector.sh install
	bash -o pipefail -c '$(SWIFT) test --skip-build 2>&1 | tee $(TEST_LOG)'
	bash -c '$(MAKE) --no-print-directory fuzz-build > $(FUZZ_BUILD_LOG) 2>&1 & fuzz_build=$$!; \
		trap "kill $$fuzz_build 2>/dev/null" EXIT; set -e; \
		$(BIN)/pushsoak $(SOAK_SHORT); \
		$(BIN)/pushsoak --transport fcm $(SOAK_SHORT_FCM); \
		$(BIN)/pushsoak --transport webpush $(SOAK_SHORT_WEBPUSH); \
		scripts/demo.sh --auto; \
		$(MAKE) --no-print-directory bench-relay-smoke; \
		$(MAKE) --no-print-directory bench-relay-cluster-smoke; \
		$(MAKE) --no-print-directory bench-webpush-smoke; \
		$(MAKE) --no-print-directory test-systemd; \
		wait $$fuzz_build || { tail -50 $(FUZZ_BUILD_LOG); echo "the fuzz build failed: $(FUZZ_BUILD_LOG)"; exit 1; }; \
		trap - EXIT'
	Fuzz/run-fuzzers.sh $(FUZZ_SMOKE_SECONDS)
	@grep -E 'Test run with [0-9]+ tests|Executed [0-9]+ tests' $(TEST_LOG) | tail -1

# Builds the test package (pushagent-debug-test, in .build/test-package/) from the debug build and checks it in a
# booted systemd container (scripts/test-systemd.sh).
test-systemd: deps
	$(MAKE) deb CONFIG=debug DEB_COMPRESS=none
	scripts/test-systemd.sh $(DEB_FILE_debug)

demo: build
	scripts/demo.sh

# The benchmarks measure the programs as `make install` and the .deb build them: release, the Swift runtime linked in
# statically (a dynamically linked build maps the Swift libraries' code besides its own: about 4 MiB more RSS).
bench: deps
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS_release)
	.build/release/pushbench --bin-dir .build/release
	.build/release/pushbench --bin-dir .build/release --transport fcm

# pushrelay next to nginx/nchan (memory, and Redis with appendfsync always), same client, three rounds of each in
# turn, one table of medians and ranges (docs/benchmarks.md). Installs nginx, libnginx-mod-nchan, redis-server and
# wrk if missing; about 10 minutes.
bench-relay: deps
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS_release) --product pushrelay
	scripts/bench-relay.sh

# Half a minute of the same, one round, with the debug relay, in `make test`: the comparison (delivery included)
# keeps working.
bench-relay-smoke:
	RELAY=$(BIN)/pushrelay RUNS=1 SENDERS=4 DEVICES=10 WARMUP=0.5 DELIVERY_SECONDS=1 LATENCY_COUNT=50 \
		THROUGHPUT_SECONDS=1 CONNECTIONS=8 HOLD=200 PROBES=20 DROP=100 QUIET_SECONDS=1 scripts/bench-relay.sh

# The relay on SQLite, on PostgreSQL, and as three instances on PostgreSQL behind nginx (docs/benchmarks.md).
# Installs postgresql, nginx and wrk if missing; runs its own PostgreSQL; about a minute.
bench-relay-cluster: deps
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS_release) --product pushrelay
	scripts/bench-relay-cluster.sh

bench-relay-cluster-smoke:
	RELAY=$(BIN)/pushrelay LATENCY_COUNT=50 THROUGHPUT_SECONDS=1 CONNECTIONS=8 scripts/bench-relay-cluster.sh

# Issue 45: the relay's Web Push service (POST /push/<token>, without and with VAPID) beside its FCM-v1 send API
# (an OAuth access token from its /token), in one run: messages/s accepted and delivered at 1, 8 and 32 senders with
# 200- and 4096-byte bodies, and POST → device's poll answer latency one message at a time; the relay's and the
# generator's CPU and this disk's fdatasync beside them (docs/benchmarks.md). `pushbench webpush --help` for the
# options; about 8 minutes.
bench-webpush: deps
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS_release) --product pushrelay
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS_release) --product pushbench
	.build/release/pushbench webpush --bin-dir .build/release
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS_release) --product pushagentd
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS_release) --product pushctl
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS_release) --product pushsim
	.build/release/pushbench webpush --bin-dir .build/release --deliver-to app --paths webpush,webpush-vapid --sizes 200 \
		--senders none --latency-count 200 --es256-samples 0

# About 10 s of the same, one round, with the debug programs, in `make test`: every path still delivers everything
# it accepted, once.
bench-webpush-smoke:
	$(BIN)/pushbench webpush --bin-dir $(BIN) --rounds 1 --devices 4 --subscriptions-per-device 5 --sizes 4096 \
		--senders 1,4 --warmup 0.2 --seconds 0.5 --latency-count 20 --es256-samples 100 --check

# Thousands of pushes (ForgeRock and PlusAuth through pushsim) while pushagentd and pushrelay are SIGKILLed and a
# fault proxy between them resets, truncates, delays and answers 5xx; then the same through FCM (pushsim's emulator
# SIGKILLed and restarted on its state, MCS sessions stalled without heartbeats); fails on any lost or duplicated
# push or answer. Then Web Push (issue 45): 1000 messages from application servers to 10 UnifiedPush apps (the spec
# connector on a private session bus, through pushctl webpush distributor) while pushagentd and pushrelay are
# SIGKILLed, some with a TTL that runs out while pushagentd lies killed; fails on any lost, duplicated, reordered or
# expired-yet-delivered message. Sized by flags in SOAK_FLAGS or PUSHSOAK_* variables (`.build/debug/pushsoak
# --help`); `make test` runs SOAK_SHORT, SOAK_SHORT_FCM and SOAK_SHORT_WEBPUSH.
SOAK_FLAGS ?=
SOAK_SHORT ?= --pushes 400 --rate 8 --kill-interval 3
SOAK_SHORT_FCM ?= --pushes 200 --rate 8 --kill-interval 3
SOAK_SHORT_WEBPUSH ?= --pushes 200 --rate 10 --kill-interval 3
soak: build
	$(BIN)/pushsoak $(SOAK_FLAGS)
	$(BIN)/pushsoak --transport fcm $(SOAK_FLAGS)
	$(BIN)/pushsoak --transport webpush $(SOAK_FLAGS)

# libFuzzer targets for every parser (Fuzz/: its own package and build dir, so `swift build` never sees
# -sanitize=fuzzer; -enable-testing lets targets reach internal parsers; lld because gold's internal error stops
# their link). `make fuzz` runs each target for FUZZ_SECONDS, `make fuzz-smoke` (part of `make test`) for
# FUZZ_SMOKE_SECONDS; figures in docs/reliability.md, crash inputs kept in Fuzz/crashes/.
FUZZ_SECONDS ?= 300
FUZZ_SMOKE_SECONDS ?= 6
.PHONY: fuzz fuzz-build fuzz-smoke
# SwiftPM keeps a path dependency's file list in its build manifest: without it a file added to the main package
# is missed and the fuzz build fails to compile until Fuzz/.build is cleaned, so the manifest is planned anew.
fuzz-build: deps
	rm -f Fuzz/.build/release.yaml
	cd Fuzz && $(SWIFT) build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -enable-testing -Xswiftc -use-ld=lld
fuzz: fuzz-build
	Fuzz/run-fuzzers.sh $(FUZZ_SECONDS)
fuzz-smoke: fuzz-build
	Fuzz/run-fuzzers.sh $(FUZZ_SMOKE_SECONDS)

# FCM's MCS and check-in messages (proto/fcm, Chromium's files as firebase-messaging ships them), generated once and
# committed: swift-protobuf's plugin takes minutes to build, and protoc is only needed here (apt: protobuf-compiler).
PROTOC_GEN_SWIFT ?= .build/protoc-gen-swift/.build/release/protoc-gen-swift
proto:
	test -x $(PROTOC_GEN_SWIFT) || { rm -rf .build/protoc-gen-swift && \
		git clone -q -b 1.39.0 https://github.com/apple/swift-protobuf.git .build/protoc-gen-swift && \
		cd .build/protoc-gen-swift && $(SWIFT) build -c release --product protoc-gen-swift; }
	protoc --plugin=$(PROTOC_GEN_SWIFT) --swift_opt=Visibility=Public \
		--swift_out=Sources/PushAgentCore/FCM/Proto -I proto/fcm proto/fcm/*.proto

# The man pages live in the tree (man/), so that `man -l man/pushctl.1` reads them in a clone before any build, and
# the units' man:pushctl(1) finds them once installed. `make man` writes them from the programs' own help
# (swift-argument-parser's generate-manual, through scripts/generate-man.sh, which keeps the help's non-ASCII
# characters that generate-manual drops); `make man-check`, part of `make test`, fails when they no longer match.
MAN_CHECK_DIR := .build/man-check
GENERATE_MAN = scripts/generate-man.sh .build/debug/generate-manual
man: build
	$(SWIFT) build --product generate-manual
	for p in $(PROGRAMS); do $(GENERATE_MAN) $(BIN)/$$p man --date $$(date +%F); done

man-check:
	$(SWIFT) build --product generate-manual
	rm -rf $(MAN_CHECK_DIR) && mkdir -p $(MAN_CHECK_DIR)
	for p in $(PROGRAMS); do \
		$(GENERATE_MAN) $(BIN)/$$p $(MAN_CHECK_DIR) && \
		grep -v '^\.Dd' $(MAN_CHECK_DIR)/$$p.1 > $(MAN_CHECK_DIR)/$$p.new && grep -v '^\.Dd' man/$$p.1 > $(MAN_CHECK_DIR)/$$p.old && \
		{ cmp -s $(MAN_CHECK_DIR)/$$p.old $(MAN_CHECK_DIR)/$$p.new || { echo "man/$$p.1 no longer matches $$p --help: run make man"; exit 1; }; }; \
	done

# The programs and the shell completions.
generated: deps
	$(SWIFT) build -c $(CONFIG) $(SWIFT_BUILD_FLAGS_$(CONFIG))
	rm -rf $(GENERATED) && mkdir -p $(GENERATED)/completions
	for shell in bash zsh fish; do \
		$(BUILD_DIR)/pushctl --generate-completion-script $$shell > $(GENERATED)/completions/pushctl.$$shell; \
	done

install: generated
	$(MAKE) install-files

# Example configs are installed only where none exists, so an admin's settings are never overwritten.
install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SYSTEMD_DIR)/system $(DESTDIR)$(SYSTEMD_DIR)/user \
		$(DESTDIR)$(SYSTEMD_DIR)/catalog $(DESTDIR)$(PREFIX)/lib/sysusers.d $(DESTDIR)$(PREFIX)/lib/tmpfiles.d \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/pushagent $(DESTDIR)$(SYSCONFDIR)/pam.d \
		$(DESTDIR)$(PREFIX)/share/polkit-1/actions $(DESTDIR)$(PREFIX)/share/dbus-1/services \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	for p in $(PROGRAMS); do install -m 0755 $(INSTALL_STRIP_$(CONFIG)) $(BUILD_DIR)/$$p $(DESTDIR)$(BINDIR)/$$p; done
	install -m 0644 systemd/pushagentd.service systemd/pushagentd.socket systemd/pushrelay.service \
		$(DESTDIR)$(SYSTEMD_DIR)/system/
	install -m 0644 systemd/user/pushagentd.service systemd/user/pushagentd.socket systemd/user/pushagent-notify.service \
		systemd/user/pushagent-unifiedpush.service $(DESTDIR)$(SYSTEMD_DIR)/user/
	install -m 0644 dbus/org.unifiedpush.Distributor.pushagent.service $(DESTDIR)$(PREFIX)/share/dbus-1/services/
	install -m 0644 systemd/pushagent.catalog $(DESTDIR)$(SYSTEMD_DIR)/catalog/pushagent.catalog
	install -m 0644 systemd/pushagent.sysusers $(DESTDIR)$(PREFIX)/lib/sysusers.d/pushagent.conf
	install -m 0644 systemd/pushagent.tmpfiles $(DESTDIR)$(PREFIX)/lib/tmpfiles.d/pushagent.conf
	for f in pushagentd.toml pushrelay.toml; do \
		[ -e $(DESTDIR)$(SYSCONFDIR)/pushagent/$$f ] || install -m 0640 etc/pushagent/$$f $(DESTDIR)$(SYSCONFDIR)/pushagent/$$f; \
	done
	[ -e $(DESTDIR)$(SYSCONFDIR)/pam.d/pushagent ] || install -m 0644 etc/pam.d/pushagent $(DESTDIR)$(SYSCONFDIR)/pam.d/pushagent
	install -m 0644 packaging/polkit/org.pushagent.policy $(DESTDIR)$(PREFIX)/share/polkit-1/actions/org.pushagent.policy
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(GENERATED)/completions/pushctl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/pushctl
	install -m 0644 $(GENERATED)/completions/pushctl.zsh $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_pushctl
	install -m 0644 $(GENERATED)/completions/pushctl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/pushctl.fish
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	cp -r docs/. $(DESTDIR)$(DOCDIR)/
	chmod -R u=rwX,go=rX $(DESTDIR)$(DOCDIR)

# A .deb of the same layout; its maintainer scripts (packaging/deb/) create the users, apply the tmpfiles,
# update the journal catalog and enable the socket. CONFIG=release: .build/pushagent_VERSION_ARCH.deb; CONFIG=debug:
# the test package, .build/test-package/pushagent-debug-test_VERSION_ARCH.deb.
DEB_FILE_debug = $(DEB_DIR_debug)/$(DEB_PACKAGE_debug)_$(VERSION)_$(DEB_ARCH).deb
deb: generated
	rm -rf $(DEB_ROOT)
	$(MAKE) install-files DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr SYSCONFDIR=/etc CONFIG=$(CONFIG)
	install -d $(DEB_ROOT)/DEBIAN
	install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm $(DEB_ROOT)/DEBIAN/
	printf '%s\n' /etc/pushagent/pushagentd.toml /etc/pushagent/pushrelay.toml /etc/pam.d/pushagent \
		> $(DEB_ROOT)/DEBIAN/conffiles
	{ cat packaging/deb/control.in; [ $(CONFIG) = release ] || cat packaging/deb/control-$(CONFIG).in; } | \
		sed -e 's/@PACKAGE@/$(DEB_PACKAGE)/' -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(DEB_ARCH)/' \
		-e 's|@SWIFT_RUNTIME_DIR@|$(SWIFT_RUNTIME_DIR)|' \
		-e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)/" > $(DEB_ROOT)/DEBIAN/control
	dpkg-deb --root-owner-group -Z$(DEB_COMPRESS) --build $(DEB_ROOT) $(DEB_FILE)

clean:
	rm -rf .build demo-state
