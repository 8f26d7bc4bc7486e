# Remat Explorer — plain Makefile (see docs/architecture.md).
#   make            build build/remat
#   make run        install missing packages, build, open the explorer on a sample
#   make test       install missing packages, build, run every test (plain + ASan/UBSan)
#   make check-deps verify the include rule between src/, solvers/, render/, ui/
#   make bench      benchmarks (figures, not pass/fail)
#   make O_SAN=1    sanitizer build in build-san/
#   make O_TSAN=1   ThreadSanitizer build in build-tsan/ (make tsan-check runs it)

CC      ?= cc
O_SAN   ?= 0
O_TSAN  ?= 0
BUILD   ?= build
SAMPLE  ?= samples/models/resnet18.json

PKGS    := libcjson libcgraph libgvc cbc
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wformat=2 -Werror
CFLAGS  ?= -O2 -g
# libraries' headers as system headers: Clp's C interface declares
# Clp_newModel() without a prototype, which -Werror would refuse
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) -I. \
             $(patsubst -I%,-isystem %,$(shell pkg-config --cflags $(PKGS)))
LDLIBS  = $(shell pkg-config --libs $(PKGS)) -lglpk -lncursesw -lpthread -lm

ifeq ($(O_SAN),1)
O_CUDA  := 0
BUILD   := build-san
CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

ifeq ($(O_TSAN),1)
O_CUDA  := 0
BUILD   := build-tsan
CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
LDFLAGS += -fsanitize=thread
endif

# CUDA replay: built automatically when nvcc is found; O_CUDA=0 turns it off
NVCC    ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
O_CUDA  ?= $(if $(NVCC),1,0)

CORE_SRC := $(wildcard src/*/*.c solvers/*.c solvers/*/*.c render/*.c)
UI_SRC   := $(wildcard ui/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
UI_OBJ   := $(UI_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard tests/bench/bench_*.c)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)

# cgraph/gvc take char * for constant strings: -Wwrite-strings everywhere else
NO_WS_FILES := src/graph/graph_dot.c render/export.c
$(BUILD)/%.o: WS = $(if $(filter $*.c,$(NO_WS_FILES)),,-Wwrite-strings)

.PHONY: all run test check tsan-check unit check-deps deps bench fuzz clean
all: $(BUILD)/remat $(if $(filter 1,$(O_CUDA)),$(BUILD)/remat-cuda)

# the CUDA backend is its own program, so remat runs where CUDA does not
$(BUILD)/remat-cuda: ui/replay_cuda.cu $(BUILD)/libremat.a
	$(NVCC) -O2 -I. $(shell pkg-config --cflags $(PKGS)) -o $@ $< $(BUILD)/libremat.a $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WS) -MMD -MP -c $< -o $@

$(BUILD)/libremat.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/remat: $(UI_OBJ) $(BUILD)/libremat.a
	$(CC) $(LDFLAGS) -o $@ $(UI_OBJ) $(BUILD)/libremat.a $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(BUILD)/libremat.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wwrite-strings $(LDFLAGS) -o $@ $< $(BUILD)/libremat.a $(LDLIBS) -lcmocka

$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libremat.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wwrite-strings $(LDFLAGS) -o $@ $< $(BUILD)/libremat.a $(LDLIBS)

$(BENCH_BIN): tests/bench/gen.h

deps:
	@./scripts/deps.sh

run: deps
	@$(MAKE) --no-print-directory all
	./$(BUILD)/remat tui $(SAMPLE)

# The README's test command: packages, build, every test, then the same
# tests again under AddressSanitizer + UndefinedBehaviorSanitizer, then the
# threaded ones under ThreadSanitizer. Builds use every core (NPROC), and
# tests/run_all.sh runs that many tests at a time.
NPROC := $(shell nproc 2>/dev/null || echo 1)
test: deps
	@$(MAKE) --no-print-directory check-deps
	@$(MAKE) --no-print-directory -j$(NPROC) check
	@$(MAKE) --no-print-directory -j$(NPROC) O_SAN=1 check
	@$(MAKE) --no-print-directory -j$(NPROC) tsan-check

# The tests that run threads (the session's worker, the explorer's logic,
# exports beside loads) and the explorer's key storm, under
# ThreadSanitizer; races inside third-party libraries are suppressed in
# tests/tsan.supp, each with its reason.
TSAN_TESTS := test_session test_tui2 test_tui_logic test_auto test_explain
TSAN_CLI   := test_keystorm.sh
tsan-check:
	@$(MAKE) --no-print-directory O_TSAN=1 build-tsan/remat \
	    $(patsubst %,build-tsan/tests/%,$(filter $(UNIT_SRC:tests/unit/%.c=%),$(TSAN_TESTS)))
	@./tests/run_all.sh build-tsan $(TSAN_TESTS) $(TSAN_CLI)

check: all $(UNIT_BIN) $(BENCH_BIN)
	@./tests/run_all.sh $(BUILD)

unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do $$t || exit 1; done

check-deps:
	@./scripts/check_deps.sh

# libFuzzer harnesses (clang, ASan + UBSan) for the JSON, DOT and plan
# readers; FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
fuzz: deps
	@./tests/fuzz/run.sh $(FUZZ_SECONDS)

bench: $(BUILD)/remat $(BENCH_BIN)
	@./tests/bench/run.sh $(BUILD)

clean:
	rm -rf build build-san build-tsan build-fuzz

-include $(CORE_OBJ:.o=.d) $(UI_OBJ:.o=.d)
