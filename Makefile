# qkv: a terminal tutor for the attention mechanism.
#   make          build ./qkv
#   make run      install missing Debian packages, build, start qkv
#   make test     install missing packages, build, run every test
#   make install  PREFIX=/usr/local DESTDIR=
# Warnings, optimisation and debug flags are kept apart (WARN, OPT, DEBUG).

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
OPT     ?= -O2
DEBUG   ?= -g
# No -ffast-math anywhere: masks are -inf and must stay -inf. Contraction into
# FMA is off so scalar code rounds like PyTorch's; the SIMD kernels ask for FMA
# explicitly.
STD     := -std=gnu11 -ffp-contract=off

PKGS    := ncursesw libcjson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CPPFLAGS += -Isrc -DQKV_VERSION='"$(VERSION)"'
ALL_CFLAGS = $(STD) $(OPT) $(DEBUG) $(WARN) $(PKG_CFLAGS) $(CFLAGS)
LDLIBS  += -Wl,--as-needed $(PKG_LIBS) -ledit -lm -lpthread

BUILD   := build
SRCS    := $(shell find src -name '*.c' | sort)
LIBSRCS := $(filter-out src/main.c,$(SRCS))
OBJS    := $(SRCS:%.c=$(BUILD)/%.o)
LIBOBJS := $(LIBSRCS:%.c=$(BUILD)/%.o)
TESTSRCS:= $(sort $(wildcard tests/unit/*.c))
TESTOBJS:= $(TESTSRCS:%.c=$(BUILD)/%.o)

.PHONY: all objs sanitize test-san run test unit deps deps-test install uninstall clean check-layers check-clang check-aarch64 refs

all: qkv

qkv: $(OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# SIMD kernels: src/kernel/simd_*.c may contract a*b+c into FMA; the AVX2 one is
# built for AVX2+FMA and only called after a CPU check (kernel/dispatch.c).
$(BUILD)/src/kernel/simd_%.o: ALL_CFLAGS += -ffp-contract=fast
ifneq ($(findstring x86_64,$(shell $(CC) -dumpmachine)),)
$(BUILD)/src/kernel/simd_avx2.o: ALL_CFLAGS += -mavx2 -mfma
endif

-include $(OBJS:.o=.d) $(TESTOBJS:.o=.d)

$(BUILD)/qkv-tests: $(LIBOBJS) $(TESTOBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(LIBOBJS) $(TESTOBJS) $(LDLIBS) -lcriterion

# ---- AddressSanitizer + UndefinedBehaviorSanitizer build: ./qkv-san ------
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

sanitize:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san CFLAGS="$(SAN_FLAGS) $(CFLAGS)" \
		LDFLAGS="$(SAN_FLAGS) $(LDFLAGS)" OPT=-O1 $(BUILD)/san/qkv $(BUILD)/san/qkv-tests
	@cp $(BUILD)/san/qkv qkv-san

$(BUILD)/qkv: $(OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

# the whole suite against ./qkv-san, in-process tests built with sanitizers too
test-san: sanitize
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 QKV=./qkv-san $(BUILD)/san/qkv-tests

# ---- Debian packages ----------------------------------------------------
BUILD_DEBS := gcc make pkg-config libncurses-dev libcjson-dev libedit-dev
TEST_DEBS  := $(BUILD_DEBS) libcriterion-dev clang tmux gcc-aarch64-linux-gnu

define install_debs
	@missing=""; \
	if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then \
		echo "qkv: this system has no apt; install these (Debian names): $(1)"; \
		for t in cc pkg-config; do command -v $$t >/dev/null || { echo "qkv: missing $$t"; exit 1; }; done; \
		exit 0; \
	fi; \
	for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "qkv: installing$$missing"; \
		if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
		$$sudo apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends $$missing >/dev/null || \
		{ echo "qkv: apt-get install$$missing failed"; exit 1; }; \
	fi
endef

deps:
	$(call install_debs,$(BUILD_DEBS))

deps-test:
	$(call install_debs,$(TEST_DEBS))

# ---- the two README commands -------------------------------------------
run: deps
	@$(MAKE) --no-print-directory qkv
	./qkv repl

test: deps-test
	@$(MAKE) --no-print-directory qkv $(BUILD)/qkv-tests check-layers check-clang check-aarch64
	@$(MAKE) --no-print-directory test-san
	QKV=./qkv $(BUILD)/qkv-tests

# Compile everything with clang too, warnings as errors (objects discarded).
check-clang:
	@if command -v clang >/dev/null; then \
		$(MAKE) --no-print-directory CC=clang BUILD=$(BUILD)/clang objs; \
	else echo "check-clang: clang not installed, skipped"; fi

objs: $(OBJS) $(TESTOBJS)

# The engine (kernel with its NEON path, core, lang) must also build for
# aarch64, warning-free.
check-aarch64:
	@command -v aarch64-linux-gnu-gcc >/dev/null || { echo "check-aarch64: needs gcc-aarch64-linux-gnu"; exit 1; }
	@$(MAKE) --no-print-directory CC=aarch64-linux-gnu-gcc BUILD=$(BUILD)/aarch64 PKG_CFLAGS= \
		$(patsubst %.c,$(BUILD)/aarch64/%.o,$(wildcard src/kernel/*.c src/core/*.c src/lang/*.c)) >/dev/null
	@echo "check-aarch64: kernel, core and lang build for aarch64"

# Layering (DESIGN.md): curses only in ui/, cJSON only in lesson/, kernel/
# includes nothing of qkv's but itself, and no layer includes one above it.
check-layers:
	@bad=0; \
	for f in $$(grep -rl 'curses\.h' src | grep -v '^src/ui/'); do echo "layer: $$f includes curses"; bad=1; done; \
	for f in $$(grep -rl 'cJSON\.h' src | grep -v '^src/lesson/'); do echo "layer: $$f includes cJSON"; bad=1; done; \
	check() { dir=$$1; shift; for up in "$$@"; do \
		for f in $$(grep -rlE "#include \"$$up/" src/$$dir 2>/dev/null); do echo "layer: $$f includes $$up/"; bad=1; done; done; }; \
	check kernel core lang lesson view ui text; \
	check core lang lesson view ui text; \
	check lang lesson view ui text; \
	check lesson view ui text; \
	check view ui text; \
	check text ui; check ui text; \
	exit $$bad

# Reference values from real PyTorch / NumPy (needs python3-torch, -numpy,
# -scipy); the outputs are committed so CI needs no Python.
refs:
	for s in tests/ref/*.py; do /usr/bin/python3 $$s || exit 1; done

install: qkv
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 qkv $(DESTDIR)$(PREFIX)/bin/qkv
	install -m 644 src/qkv.1 $(DESTDIR)$(PREFIX)/share/man/man1/qkv.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/qkv $(DESTDIR)$(PREFIX)/share/man/man1/qkv.1

clean:
	rm -rf $(BUILD) qkv
