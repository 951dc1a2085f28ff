# Makefile for drape. `make test` is what CI runs (through .ci/run).
#
# deps-build installs the system packages the cgo build of the viewer needs
# (build, run and bench depend on it); deps adds those the headless viewer
# tests and video recording need (test depends on it). Both go through apt,
# and only when a package is missing.

SHELL := /bin/bash

# Go lives in /usr/local/go on a fresh machine of this kind, not always on PATH.
export PATH := $(PATH):/usr/local/go/bin

BUILD_PKGS := pkg-config g++ libgl-dev libx11-dev libxcursor-dev libxrandr-dev \
	libxinerama-dev libxi-dev libxxf86vm-dev
RUN_PKGS   := xvfb xauth libgl1-mesa-dri xdotool
VIDEO_PKGS := ffmpeg
PKGS       := $(BUILD_PKGS) $(RUN_PKGS) $(VIDEO_PKGS)

# imgui's cgo build prints a harmless -Wstringop-overflow warning; the
# variable replaces Go's default flags, so keep -g -O2.
export CGO_CXXFLAGS := -g -O2 -Wno-stringop-overflow

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# -noreset: by default Xvfb resets when its last client disconnects, and a
# viewer that connects during that reset fails with "Failed to open display"
# (CI at ac3fc2b: TestGUIUndoObstacle, started right after the previous
# test's viewer quit; the server-side race is xorg/xserver issue 1102).
XVFB := xvfb-run -a -s "-screen 0 1280x800x24 -noreset"

# Packages whose TestGUI* tests need a display: render always, app once it
# has Go files (go test fails on a pattern that matches no package).
GUI_PKGS := ./render/... $(if $(wildcard app/*.go),./app/...)

.PHONY: deps deps-build build test run bench blender-test gallery

# install-missing installs those of the packages in $(1) that dpkg does not
# know as installed.
define install-missing
	@missing=""; \
	for p in $(1); do \
		dpkg -s "$$p" >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing$$missing"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $$missing; \
	else \
		echo "deps: all system packages present"; \
	fi
endef

deps-build:
	$(call install-missing,$(BUILD_PKGS))

deps:
	$(call install-missing,$(PKGS))

build: deps-build
	go build -o bin/drape .

# The full physics suite runs once without the race detector (it proves sim/
# is pure Go, too); the race detector then runs everything in -short mode,
# which skips only the long physics runs; of app's long runs, the replay of
# a viewer monkey failure (about a minute) runs on its own. sim/scene's
# long runs take most of go test's default 10 minutes on 2 busy cores (it
# timed out at 600 s with a viewer monkey beside it), hence -timeout.
test: deps
	go vet -composites=false ./...  # unkeyed Vec3{x, y, z} literals are the norm for vectors
	CGO_ENABLED=0 go test -timeout 25m ./sim/...
	go test -race -short ./...
	go test -count=1 -run '^TestReplayCurtainMonkey$$' ./app/
	$(XVFB) go test -count=1 -run '^TestGUI' $(GUI_PKGS)

# run opens the viewer on the default scene (app.DefaultScene, "hanging").
# Without a display it prints one line saying so and exits 1.
run: build
	./bin/drape view

bench: deps-build
	go test -run '^$$' -bench . -benchmem ./sim/...

# gallery records the stills of docs/images (tools/gallery.sh): one per
# built-in scene and the README's image, in the fabric look. A few minutes.
gallery: deps build
	$(XVFB) tools/gallery.sh bin/drape

# blender-test checks the exports in the real Blender, headless
# (tools/blender/blender_test.go: a 4 s sphere-adaptive point cache, and
# frame sequences). It installs Debian's blender when missing; test leaves
# it out, as the install is large and slow, and there the Blender tests skip.
blender-test:
	$(call install-missing,blender)
	go test -count=1 -v -run '^TestBlender' ./tools/blender/
