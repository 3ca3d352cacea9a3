# Pharaon kiosk. A fresh Debian 12 machine needs two commands: `make run` and
# `make test`. Both install what they lack (`make deps`).
SHELL := /bin/bash
# Go: the machine's when it is at least the version go.mod asks for, else the
# toolchain that make deps fetches from the Go module proxy into the user's
# cache (packaging/gotoolchain.sh; Debian 12's go is 1.19), first in PATH for
# every recipe and the scripts they run. GO=... names another.
GO_MOD_VERSION := $(shell sed -n 's/^go //p' go.mod)
GO_HOME := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/pharaon/go-toolchain
GO_LOCAL := $(shell v=$$(go env GOVERSION 2>/dev/null); v=$${v/go/}; \
  [ -n "$$v" ] && [ "$$(printf '%s\n' "$(GO_MOD_VERSION)" "$$v" | sort -V | head -n 1)" = "$(GO_MOD_VERSION)" ] && echo yes)
ifeq ($(origin GO),undefined)
ifneq ($(GO_LOCAL),yes)
export PATH := $(GO_HOME)/bin:$(PATH)
GO_FETCH := yes
endif
endif
GO ?= go
BIN := bin
# Fyne logs a locale error under LANG=C and C.UTF-8 (it reads the language
# from LANG): the kiosk speaks French first.
export LANG := fr_FR.UTF-8
export LC_ALL :=
export LC_MESSAGES :=
export CGO_ENABLED := 1

# Debian packages for the cgo builds of Fyne (OpenGL, X11) and SQLite, and
# the TPM 2.0 emulator the trust root's tests run (hw/tpm/tpmtest), and
# systemd for systemd-analyze, which rates the kiosk unit's sandbox, and
# lintian, which checks the package (packaging/deb_test.go,
# packaging/lintian_test.go), and Xvfb, the virtual screen the kiosk's real
# window is stopped on (cmd/pharaon/window_test.go), and espeak-ng, the
# voice the speech's tests hear (kiosk/speech), and Node and npm, which run
# the independent eSSP host the validator simulator is tried against
# (hw/sim/esspsim/thirdparty_test.go), taken from Debian only when the
# machine has no node and npm of its own (Debian's npm cannot be installed
# beside a Node from another source, which brings its npm); chromium, the headless browser the
# operator's console is tested in (cmd/pharaon-central,
# console_browser_test.go); and what fetches Go when the machine's is too
# old.
NODE_DEBS := $(if $(and $(shell command -v node),$(shell command -v npm)),,nodejs npm)
DEB_DEPS := libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev \
            libxi-dev libxxf86vm-dev pkg-config gcc swtpm systemd lintian xvfb espeak-ng $(NODE_DEBS) chromium $(if $(GO_FETCH),curl ca-certificates unzip)

# make test: -race everywhere. The timeout is a guard against a hung test,
# not a measure of speed: one for CI and a person's machine, long enough for
# a package's tests on 2 cores shared with another make test and more (the
# kiosk package's took over 40 minutes at load 10 to 13, and was killed).
TEST_FLAGS ?= -race -count=1 -timeout 80m

.PHONY: all deps build test check bench bench-scene run fuzz soak clean screenshots screenshots-player

all: build

# debs installs the Debian packages $(1) that are missing, for target $(2).
define debs
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make $(2): installing$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo=sudo; \
	  else echo "make $(2): missing Debian packages:$$missing (run as root or install them)" >&2; exit 1; fi; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call debs,$(DEB_DEPS),deps)
	$(if $(GO_FETCH),@packaging/gotoolchain.sh $(GO_HOME))
	@$(GO) mod download

build: deps
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

# make screenshots: the maintenance pictures of docs/screenshots/ taken
# again from bin/pharaon -dev on a virtual screen (packaging/screenshots.sh),
# then the player's game pictures on the showcase database
# (packaging/screenshots-player.sh).
SHOT_DEPS := xvfb xdotool imagemagick x11-utils
screenshots: build
	$(call debs,$(SHOT_DEPS),screenshots)
	packaging/screenshots.sh docs/screenshots
	GO="$(GO)" packaging/screenshots-player.sh docs/screenshots

# make screenshots-player: the player's game pictures alone.
screenshots-player: build
	$(call debs,$(SHOT_DEPS),screenshots-player)
	GO="$(GO)" packaging/screenshots-player.sh docs/screenshots

test: deps
	$(GO) vet ./...
	@# The unit's sandbox rating, shown (TestUnitSandbox fails above 4.0).
	@systemd-analyze security --offline=yes --no-pager packaging/systemd/pharaon.service | tail -n 1
	@# lintian's tags on the package, shown (TestLintian fails on an error, a
	@# warning or a hardening tag; it lints a stand-in binary built as make deb
	@# builds the kiosk).
	@set -o pipefail; $(GO) test -count=1 -run '^TestLintian$$' -v ./packaging/ | { grep '^lintian' || true; }
	$(GO) test $(TEST_FLAGS) ./...

# make check: what a reviewer checks, and what CI runs before make test:
# formatting, vet, a go.mod that says what the code imports (direct
# dependencies not marked indirect), staticcheck at a pinned version, and no
# comment or document that points outside the repository or to a tracker.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
check: deps
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff
	$(GO) run $(STATICCHECK) ./...
	@out=$$(git grep -n -I -E '/wor[k]/|\.\./share[d]/|(^|[^a-zA-Z])[Ii]ssue #?[0-9]' -- ':!Makefile' || true); \
	  if [ -n "$$out" ]; then echo "make check: pointers outside the repository or to a tracker:"; echo "$$out"; exit 1; fi

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

# make bench-scene PEER=/path/to/fynescene: the screens' CPU, frame gaps,
# first frame and memory beside a peer Fyne scene, three rounds alternated,
# about 5 minutes (cmd/pharaon-scenebench/bench.sh, docs/performance.md).
bench-scene: build
	PEER="$(PEER)" cmd/pharaon-scenebench/bench.sh

# make fuzz: every fuzz test of the project in turn, FUZZTIME each (make test
# runs their committed seed corpora; this searches for new inputs).
FUZZTIME ?= 30s
fuzz: deps
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# make soak: the crash tests with many more kills (the store's play
# transaction: 3 000 SIGKILLs and 1 000 power cuts on store/powercut; the
# notes' and vouchers' exactly-once: x12, the notes' power cuts too), the
# engine's Auto bound and property tests over ten times more games, and the
# fault harness over the whole headless kiosk with 3 000 faults and 1 000
# power cuts on store/powercut (kiosk/harness, docs/fault-harness.md; make
# test runs 200 faults and 30 cuts), and the fleet at scale with every one
# of its 50 kiosks a kiosk core, 300 games each and 12 network faults
# (kiosk/fleet, docs/fleet.md; make test: 10 cores and 40 store-only
# kiosks, 100 games, 6 faults), and the centre on three nodes with 24
# kiosks (4 kiosk cores) x 400 games through a node stopped and a node
# wiped (make test: 8 kiosks, 1 core, 120 games). Long: outside CI.
soak: deps
	PHARAON_SOAK=1 BREAKOUT_SOAK=10 $(GO) test -race -count=1 -timeout 180m \
	  -run 'Crash|ExactlyOnce|PowerCut|Property|Auto|FaultHarness|FleetScale|FleetCluster' ./store ./kiosk ./game/breakout ./kiosk/harness ./kiosk/fleet

# make run: the kiosk on a development default (docs/kiosk-config.md): its
# database under the user's data directory, a demo issuer key and a demo block
# per stake made on first start, both cash devices simulated on
# pseudo-terminals (the bill validator and the voucher printer, whose links
# are in run/ beside the database; printed vouchers land in vouchers/ as text
# and PNG) with the striped development panel that inserts notes and causes
# device faults (-dev), in a 1280x800 window. Without a display the binary
# says how to run it under xvfb-run. Extra flags: make run RUN_ARGS="-lang en".
RUN_ARGS ?=
run: build
	$(BIN)/pharaon -dev -fullscreen=false $(RUN_ARGS)

# make run-fleet: a development fleet on this machine: a nats-server with
# JetStream on loopback (pharaon-central serve, in operator mode with TLS,
# its store in bin/fleet, the centre's claim service with it) and two
# development kiosks, PH-DEV-1 and PH-DEV-2, each with its own database and
# its own credentials, publishing their records to it (DESIGN.md §11, docs/fleet.md). The fleet's material
# (operator, accounts, CA, voucher key) and each kiosk's bundle are made in
# bin/fleet on first use (make fleet-init). Both kiosks are in the group
# FLEET_GROUP (dev) and trust the fleet's development issuer key
# (bin/fleet/issuer.pub, made on first use). Stop with Ctrl-C; read the
# fleet with make fleet-status.
#
# To try a block sent to the group, from another terminal while it runs:
#   make fleet-send-block BLOCK=1
# generates block 77/1 at 1 € signed with that key and sends it to the
# group: one kiosk imports it, the other records it taken (make
# fleet-blocks shows both); BLOCK=1 again is refused, already on sale;
# TO=PH-DEV-2 sends to one kiosk instead of the group.
FLEET_DIR ?= $(BIN)/fleet
NATS_ADDR ?= 127.0.0.1:4222
NATS_URL = tls://$(NATS_ADDR)
FLEET_GROUP ?= dev
FLEET_KIOSKS = PH-DEV-1 PH-DEV-2
CENTRAL = $(BIN)/pharaon-central
.PHONY: run-fleet fleet-init fleet-status fleet-key fleet-send-block fleet-blocks
run-fleet: build fleet-key fleet-init
	@set -m; trap 'kill $$pids 2>/dev/null; wait' EXIT INT TERM; \
	$(CENTRAL) serve -fleet $(FLEET_DIR) -listen $(NATS_ADDR) -store $(FLEET_DIR)/jetstream & pids="$$!"; \
	for k in $(FLEET_KIOSKS); do \
	  $(BIN)/pharaon -dev -fullscreen=false -kiosk-id $$k -db $(FLEET_DIR)/$$k/pharaon.db \
	    -nats-url $(NATS_URL) -nats-creds $(FLEET_DIR)/kiosks/$$k/kiosk.creds -nats-ca $(FLEET_DIR)/kiosks/$$k/ca.pem \
	    -nats-voucher-key $(FLEET_DIR)/kiosks/$$k/voucher.key -keys $(FLEET_DIR)/issuer.pub $(RUN_ARGS) & pids="$$pids $$!"; \
	done; \
	wait -n

# fleet-init: the fleet's material and each kiosk's bundle, made once.
fleet-init: build
	@test -f $(FLEET_DIR)/nsc/stores/pharaon/pharaon.jwt || \
	  $(CENTRAL) init -fleet $(FLEET_DIR) -listen $(NATS_ADDR) -store $(FLEET_DIR)/jetstream
	@for k in $(FLEET_KIOSKS); do test -f $(FLEET_DIR)/kiosks/$$k/kiosk.creds || \
	  $(CENTRAL) kiosk add -fleet $(FLEET_DIR) -id $$k -groups $(FLEET_GROUP) -url $(NATS_URL) -nats $(NATS_URL); done

fleet-key: build
	@mkdir -p $(FLEET_DIR)
	@test -f $(FLEET_DIR)/issuer.key || $(BIN)/pharaon-issuer keygen -out $(FLEET_DIR)/issuer

BLOCK ?= 1
TO ?=
fleet-send-block: fleet-key
	@test -f $(FLEET_DIR)/block-$(BLOCK).pblk || $(BIN)/pharaon-issuer generate -emission 77 -block $(BLOCK) -stake 1 \
	  -key $(FLEET_DIR)/issuer.key -out $(FLEET_DIR)/block-$(BLOCK).pblk
	$(CENTRAL) send-block -fleet $(FLEET_DIR) -nats $(NATS_URL) -file $(FLEET_DIR)/block-$(BLOCK).pblk \
	  $(if $(TO),-to $(TO),-group $(FLEET_GROUP))

fleet-blocks: build
	$(CENTRAL) blocks -fleet $(FLEET_DIR) -nats $(NATS_URL)

# make run-fleet-cluster: make run-fleet with its centre on three nodes of a
# cluster (DESIGN.md §11, docs/fleet.md, The centre as a cluster): three
# pharaon-central serve -node n1, n2, n3 on loopback, the kiosks' ports
# 4231 to 4233 and the routes' 6231 to 6233 (TLS verified both ways with the
# fleet's CA), each storing in bin/fleet-cluster/jetstream-nN, the streams
# and buckets in three copies, each node with the claim service. The two
# kiosks are given the three URLs. The fleet's material and the kiosks'
# bundles are made in bin/fleet-cluster on first use (make
# fleet-cluster-init). Each node's process id is printed: kill one (or
# kill -STOP it) and the kiosks go on with the two others; make
# fleet-cluster-status reads the fleet through any node that answers.
CLUSTER_DIR ?= $(BIN)/fleet-cluster
CLUSTER_NODES = 1 2 3
CLUSTER_URL = tls://127.0.0.1:4231,tls://127.0.0.1:4232,tls://127.0.0.1:4233
.PHONY: run-fleet-cluster fleet-cluster-init fleet-cluster-status
run-fleet-cluster: build fleet-cluster-init
	@set -m; trap 'kill $$pids 2>/dev/null; wait' EXIT INT TERM; pids=""; \
	for n in $(CLUSTER_NODES); do \
	  routes=""; for o in $(CLUSTER_NODES); do [ $$o = $$n ] || routes="$$routes$${routes:+,}127.0.0.1:623$$o"; done; \
	  $(CENTRAL) serve -fleet $(CLUSTER_DIR) -listen 127.0.0.1:423$$n -store $(CLUSTER_DIR)/jetstream-n$$n \
	    -node n$$n -cluster 127.0.0.1:623$$n -routes $$routes & pids="$$pids $$!"; \
	  echo "node n$$n: pid $$!"; \
	done; \
	for k in $(FLEET_KIOSKS); do \
	  $(BIN)/pharaon -dev -fullscreen=false -kiosk-id $$k -db $(CLUSTER_DIR)/$$k/pharaon.db \
	    -nats-url $(CLUSTER_URL) -nats-creds $(CLUSTER_DIR)/kiosks/$$k/kiosk.creds -nats-ca $(CLUSTER_DIR)/kiosks/$$k/ca.pem \
	    -nats-voucher-key $(CLUSTER_DIR)/kiosks/$$k/voucher.key -keys $(CLUSTER_DIR)/issuer.pub $(RUN_ARGS) & pids="$$pids $$!"; \
	done; \
	wait -n

# fleet-cluster-init: the cluster's fleet material, its kiosks' bundles
# (given the three URLs) and its issuer key, made once.
fleet-cluster-init: build
	@$(MAKE) --no-print-directory fleet-key FLEET_DIR=$(CLUSTER_DIR)
	@test -f $(CLUSTER_DIR)/nsc/stores/pharaon/pharaon.jwt || \
	  $(CENTRAL) init -fleet $(CLUSTER_DIR) -listen 127.0.0.1:4231 -store $(CLUSTER_DIR)/jetstream-n1
	@for k in $(FLEET_KIOSKS); do test -f $(CLUSTER_DIR)/kiosks/$$k/kiosk.creds || \
	  $(CENTRAL) kiosk add -fleet $(CLUSTER_DIR) -id $$k -groups $(FLEET_GROUP) -url $(CLUSTER_URL) -nats $(CLUSTER_URL); done

fleet-cluster-status: build
	$(CENTRAL) status -fleet $(CLUSTER_DIR) -nats $(CLUSTER_URL); $(CENTRAL) report -fleet $(CLUSTER_DIR) -nats $(CLUSTER_URL)

fleet-status: build
	$(CENTRAL) status -fleet $(FLEET_DIR) -nats $(NATS_URL); $(CENTRAL) report -fleet $(FLEET_DIR) -nats $(NATS_URL)

clean:
	rm -rf $(BIN)

# make deb: the kiosk's Debian package in bin/dist/ (packaging/deb.sh, nfpm
# at a pinned version): the binary, the cage session's systemd unit, udev
# rules, tmpfiles and sysusers entries, /etc/pharaon, a SHA-256 manifest;
# with UPDATE_KEY=FILE.key the manifest is signed, and the binary, stamped
# as a signed package's (main.signedBuild), checks itself against it at
# every boot whatever its configuration says (kiosk/selftest.go).
# The version grows with the commits, so an update always sorts newer, and
# says whether the package is signed: without UPDATE_KEY it ends in
# "~unsigned", which sorts before the signed package of the same commit (a
# signed update of an unsigned image's commit is newer, and its files do not
# overwrite the image's). The software identity view shows it.
# Computed once, when make starts: a commit made while the image builds must
# not rename the package the image recipe looks for.
ifeq ($(origin DEB_VERSION),undefined)
DEB_VERSION := 0.1.0+git$(shell git rev-list --count HEAD 2>/dev/null || echo 0).$(shell git rev-parse --short HEAD 2>/dev/null || echo none)$(if $(UPDATE_KEY),,~unsigned)
endif
DIST := $(BIN)/dist
# The package's binary is hardened as Debian's own are: position-independent
# (-buildmode=pie), its relocations read-only once loaded (-bindnow: RELRO
# and BIND_NOW), and the C that cgo compiles (SQLite, GLFW, Go's runtime/cgo)
# with the flags of dpkg-buildflags: _FORTIFY_SOURCE's checked functions,
# the stack protector. lintian checks them (packaging/lintian_test.go).
DEB_GOFLAGS := -trimpath -buildmode=pie
DEB_LDFLAGS := -s -w -bindnow
DEB_CGO_CFLAGS := -O2 -g -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection -fcf-protection
deb_build = CGO_CFLAGS="$(DEB_CGO_CFLAGS)" $(GO) build $(DEB_GOFLAGS) -ldflags "$(DEB_LDFLAGS)$(1)"
.PHONY: deb deb-standin deb-version
# make deb-version: the version make deb would give the package.
deb-version:
	@echo $(DEB_VERSION)
deb: deps
	@mkdir -p $(BIN)/deb
	$(call deb_build, -X pharaon/kiosk.Version=$(DEB_VERSION)$(if $(UPDATE_KEY), -X main.signedBuild=yes)) -o $(BIN)/deb/pharaon ./cmd/pharaon
	$(if $(UPDATE_KEY),$(GO) build -o $(BIN)/deb/pharaon-issuer ./cmd/pharaon-issuer)
	$(if $(UPDATE_KEY),SIGN_MANIFEST="$(BIN)/deb/pharaon-issuer sign-manifest -key $(UPDATE_KEY)") \
	  packaging/deb.sh $(BIN)/deb/pharaon $(DEB_VERSION) $(DIST)

# make deb-standin OUT=FILE: a small cgo program built as make deb builds the
# kiosk, for packaging/lintian_test.go to lint a package of (the kiosk itself
# takes minutes to build in PIE mode).
deb-standin:
	@[ -n "$(OUT)" ] || { echo "make deb-standin: OUT=FILE is required" >&2; exit 2; }
	$(call deb_build,) -o $(OUT) ./packaging/testdata/standin

# make update-bundle UPDATE_KEY=FILE.key: the package of make deb as a signed
# update bundle, bin/dist/pharaon_VERSION_ARCH.update (pharaon-issuer
# update-bundle, kiosk/update), for `pharaon update` on a kiosk
# (docs/technician.md). The key is an update key (pharaon-issuer keygen),
# never a block key; its .pub goes in the kiosks' /etc/pharaon/update-keys.
.PHONY: update-bundle
update-bundle: deb
	@[ -n "$(UPDATE_KEY)" ] || { echo "make update-bundle: UPDATE_KEY=FILE.key is required" >&2; exit 2; }
	arch=$$($(GO) env GOARCH); $(GO) run ./cmd/pharaon-issuer update-bundle -key $(UPDATE_KEY) \
	  -deb $(DIST)/pharaon_$(DEB_VERSION)_$$arch.deb -out $(DIST)/pharaon_$(DEB_VERSION)_$$arch.update

# make system-bundle UPDATE_KEY=FILE.key: the system of the last make image
# (bin/dist/system/: its root file system, kernel and initrd) as a signed
# system bundle, bin/dist/pharaon-system_VERSION_ARCH.update, for `pharaon
# update` on a kiosk from an image: written into the other A/B slot, started
# on trial at the next restart (kiosk/update/system.go). VERSION= gives
# another version than the image's; ROLLBACK=yes signs it as a rollback (a
# kiosk takes it even when not newer than what it runs). An image built
# with SECUREBOOT_KEYS leaves its slots' signed unified kernel images
# there too: the bundle carries them.
.PHONY: system-bundle
system-bundle:
	@[ -n "$(UPDATE_KEY)" ] || { echo "make system-bundle: UPDATE_KEY=FILE.key is required" >&2; exit 2; }
	@[ -f $(DIST)/system/root.img ] || { echo "make system-bundle: no $(DIST)/system/root.img: make image first" >&2; exit 2; }
	v="$(or $(VERSION),$$(cat $(DIST)/system/VERSION))"; arch=$$($(GO) env GOARCH); \
	$(GO) run ./cmd/pharaon-issuer update-bundle -key $(UPDATE_KEY) $(if $(filter yes,$(ROLLBACK)),-rollback) \
	  -root $(DIST)/system/root.img -kernel $(DIST)/system/vmlinuz -initrd $(DIST)/system/initrd.img \
	  $$([ -f $(DIST)/system/pharaon-a.efi ] && echo -uki-a $(DIST)/system/pharaon-a.efi -uki-b $(DIST)/system/pharaon-b.efi) \
	  -version "$$v" -arch $$arch -out $(DIST)/pharaon-system_$${v}_$$arch.update

# make image: the kiosk's disk image in bin/dist/ (packaging/image/build.sh):
# Debian 12 by mmdebstrap with the package of make deb, a GPT disk with an EFI
# system partition (systemd-boot), the root, the FAT partition PHARAON (the
# site file a laptop edits) and the data partition for /var/lib/pharaon,
# grown to the disk at boot; xz-compressed (XZ=no: not), with its SHA-256
# and bmap, and the raw image for make vm-test. With UPDATE_KEY=FILE.key the
# image's package is signed (make deb) and the image trusts FILE.pub, beside
# the key as pharaon-issuer keygen writes it (or UPDATE_PUB=FILE.pub), for
# the package's self-test and its updates; the image's SHA-256 file is
# signed too (pharaon.img.xz.sha256.sig: pharaon-issuer verify-manifest).
# With SECUREBOOT_KEYS=DIR (the operator's Secure Boot keys:
# packaging/image/secureboot.sh keys DIR) the image boots with Secure Boot on
# those keys: systemd-boot and each slot's unified kernel image signed, the
# keys enrolled by systemd-boot at the first boot (docs/technician.md).
# Needs root and the network; takes minutes: never part of make test.
IMAGE_TOOLS := mmdebstrap dosfstools mtools fdisk e2fsprogs systemd-boot-efi xz-utils bmap-tools
.PHONY: image
image: deb
	@missing=""; for p in $(IMAGE_TOOLS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then echo "make image: apt-get install$$missing" >&2; exit 1; fi
	@pub="$(or $(UPDATE_PUB),$(if $(UPDATE_KEY),$(basename $(UPDATE_KEY)).pub))"; \
	if [ -n "$$pub" ] && [ ! -f "$$pub" ]; then echo "make image: no public key $$pub for UPDATE_KEY=$(UPDATE_KEY) (or give UPDATE_PUB=FILE.pub)" >&2; exit 2; fi
	UPDATE_PUB="$(or $(UPDATE_PUB),$(if $(UPDATE_KEY),$(basename $(UPDATE_KEY)).pub))" SECUREBOOT_KEYS="$(SECUREBOOT_KEYS)" \
	  packaging/image/build.sh $(DIST)/pharaon_$(DEB_VERSION)_$$($(GO) env GOARCH).deb $(DIST)
	$(if $(UPDATE_KEY),[ ! -f $(DIST)/pharaon.img.xz.sha256 ] || $(BIN)/deb/pharaon-issuer sign-manifest -key $(UPDATE_KEY) $(DIST)/pharaon.img.xz.sha256)

# make vm-test: boots a copy of the image of make image in QEMU (software
# emulation, serial console, an emulated TPM 2.0 and the cash devices'
# simulators on USB-serial adapters; packaging/image/vm-test.sh): waits for
# the kiosk's READY=1, checks its database is on the data partition, that it
# rests on the TPM and that the watchdog restarts a frozen kiosk; the data
# partition grown to a larger disk, the network, SSH by the site file's key
# only; a voucher
# printed and paid, the data partition put back to its copy from before the
# payout: the kiosk out of service (rollback), the technician logged in.
# Then the A/B system update (packaging/image/vm-ab-test.sh): a system bundle
# from a USB stick into the other slot, confirmed once the kiosk is ready; a
# broken one tried and left by itself for the slot before; an older one
# refused. Saves screen dumps in bin/dist/. Tens of minutes: never part of
# make test.
.PHONY: vm-test
vm-test:
	@for p in qemu-system-x86 ovmf e2fsprogs fdisk mtools dosfstools swtpm openssh-client; do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || { echo "make vm-test: apt-get install $$p" >&2; exit 1; }; \
	done
	packaging/image/vm-test.sh $$(ls $(DIST)/pharaon.img 2>/dev/null || echo $(DIST)/pharaon.img.xz) $(DIST)
	[ -f $(DIST)/pharaon.img ] || xz -dk $(DIST)/pharaon.img.xz
	packaging/image/vm-ab-test.sh $(DIST)/pharaon.img $(DIST)
