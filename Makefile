# Pharaon kiosk. A fresh Debian 12 machine needs two commands: `make run` and
# `make test`. Both install what they lack (`make deps`).
SHELL := /bin/bash
GO ?= go
BIN := bin
# Fyne logs a locale error under LANG=C.
export LANG := C.UTF-8
export CGO_ENABLED := 1

# Debian packages for the cgo builds of Fyne (OpenGL, X11) and SQLite.
DEB_DEPS := libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev \
            libxi-dev libxxf86vm-dev pkg-config gcc

# make test: -race everywhere; CI gets a longer timeout as it runs on 2 cores.
TEST_FLAGS ?= -race -count=1 -timeout $(if $(CI),80m,40m)

.PHONY: all deps build test check bench run fuzz clean

all: build

deps:
	@missing=""; for p in $(DEB_DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo=sudo; \
	  else echo "make deps: missing Debian packages:$$missing (run as root or install them)" >&2; exit 1; fi; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@$(GO) mod download

build: deps
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

test: deps
	$(GO) vet ./...
	$(GO) test $(TEST_FLAGS) ./...

check: deps
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Until the kiosk's screens exist, `make run` shows what exists: the issuer
# generates, verifies and inspects a signed demo block.
DEMO := $(HOME)/.local/share/pharaon/demo
run: build
	@mkdir -p $(DEMO)
	@[ -f $(DEMO)/issuer.key ] || $(BIN)/pharaon-issuer keygen -out $(DEMO)/issuer
	$(BIN)/pharaon-issuer generate -emission 1 -block 1 -stake 0,50 -key $(DEMO)/issuer.key -out $(DEMO)/block-1-1.pblk
	$(BIN)/pharaon-issuer verify -key $(DEMO)/issuer.pub $(DEMO)/block-1-1.pblk
	$(BIN)/pharaon-issuer inspect $(DEMO)/block-1-1.pblk

clean:
	rm -rf $(BIN)
