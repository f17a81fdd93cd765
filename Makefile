# warpsched: two commands.  `make demo` and `make test` each bootstrap what they need
# (Debian lld-22/llvm-22 when missing, and .venv with the pinned toolchain) idempotently; on a
# machine with an NVIDIA GPU they add the gpu extra (torch), so `make test` runs the GPU tests.

PYTHON3 ?= python3
VENV    ?= .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.warpsched-installed
SYSTEM_TOOLS := ld.lld-22 llvm-objdump-22
OUT     ?= out
# 1 when `nvidia-smi -L` lists a GPU: setup then installs requirements-gpu.lock (the gpu extra:
# torch) into .venv, and pytest runs the tests marked gpu on it.  WARPSCHED_GPU=0 or 1 overrides.
WARPSCHED_GPU ?= $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && echo 1 || echo 0)
GPU_STAMP := $(VENV)/.warpsched-gpu-installed

.PHONY: setup system-tools demo test lint lit pytest bench doctor clean

setup: system-tools $(STAMP) $(if $(filter 1,$(WARPSCHED_GPU)),$(GPU_STAMP))

# Debian's lld-22 and llvm-22, installed through apt only when missing; as non-root we say how.
system-tools:
	@missing=""; for tool in $(SYSTEM_TOOLS); do command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "warpsched: missing$$missing; run: sudo apt-get install -y lld-22 llvm-22"; exit 1; \
	  fi; \
	  echo "warpsched: installing lld-22 llvm-22 (missing:$$missing)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lld-22 llvm-22 >/dev/null; \
	fi
	@if ! ldconfig -p 2>/dev/null | grep -q libcairo.so.2; then \
	  if [ "$$(id -u)" != 0 ]; then echo "warpsched: missing libcairo2 (warpsched-viz's PNG test); run: sudo apt-get install -y libcairo2"; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcairo2 >/dev/null; \
	fi

# The virtual environment, rebuilt only when the lock or the project metadata change.
$(STAMP): requirements.lock pyproject.toml
	@test -x $(PY) || $(PYTHON3) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

# The gpu extra, on top of the same pins (requirements-gpu.lock changes none of requirements.lock's).
$(GPU_STAMP): requirements-gpu.lock $(STAMP)
	@echo "warpsched: an NVIDIA GPU is present; installing the gpu extra (requirements-gpu.lock: torch)"
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.lock -r requirements-gpu.lock
	@touch $@

doctor: setup
	$(PY) -m warpsched.toolchain.doctor

EXAMPLES := examples/pingpong.mlir examples/four_wave.mlir examples/pingpong_body.mlir \
            examples/four_wave_body.mlir examples/pingpong_fixed.mlir \
            examples/pingpong_strict.mlir examples/four_wave_strict.mlir

# The library tour, then every shipped schedule built (sched.build ops; a no-op elsewhere) and
# expanded by warpsched-opt into $(OUT)/, then the AMD kernels of the schedules that pass
# sched-verify's default per-wave rule (pingpong_strict.mlir, four_wave_strict.mlir: golden S1
# races on its kernel, golden S4 and the fixed S1 across waves, docs/verify.md) compiled by
# warpsched-compile to .hsaco for gfx942 and gfx950 with its resource report and a schedule
# fidelity check (which fails the demo below 100%), the warp-specialized NVIDIA kernels to cubins
# with their data path and SASS summary (sm_90a: mma.sync; sm_100a: tcgen05 and TMEM, cta_group 1
# and 2, compile only), and the Hopper GEMM (sched.nv_gemm) to an sm_90a cubin with its SASS
# summary (HGMMA, TMA, spills), and the two strict AMD schedules to sm_90a cubins (the correctness
# path of docs/crossvendor.md, whose ping-pong kernel spills: said on the line after it); the
# last line counts what was built.
AMD_KERNELS := pingpong_strict.mlir:pingpong_gfx950:gfx950 pingpong_strict.mlir:pingpong_gfx942:gfx942 \
               four_wave_strict.mlir:four_wave:gfx950 four_wave_strict.mlir:four_wave:gfx942
WS_KERNELS  := ws_gemm_sm90a:sm_90a ws_gemm_sm100a:sm_100a ws_gemm_sm100a_2cta:sm_100a
XV_KERNELS  := four_wave_strict:four_wave pingpong_strict:pingpong_gfx950
NV_CUBINS   := $(words $(WS_KERNELS) hopper_gemm $(XV_KERNELS))

demo: setup
	$(PY) examples/library_tour.py
	@mkdir -p $(OUT)
	@for example in $(EXAMPLES); do \
	  name=$$(basename $$example .mlir); \
	  $(VENV)/bin/warpsched-opt --sched-build-program --sched-expand-blocks $$example -o $(OUT)/$$name.expanded.mlir || exit 1; \
	  echo "expanded $$example -> $(OUT)/$$name.expanded.mlir ($$(grep -c sched.entry $(OUT)/$$name.expanded.mlir) entries)"; \
	done
	@for spec in $(AMD_KERNELS); do \
	  file=$${spec%%:*}; rest=$${spec#*:}; kernel=$${rest%%:*}; target=$${rest#*:}; \
	  echo "warpsched-compile examples/$$file --target $$target --kernel $$kernel -o $(OUT)/$$kernel.$$target.hsaco --report --check-fidelity"; \
	  $(VENV)/bin/warpsched-compile examples/$$file --target $$target --kernel $$kernel \
	    -o $(OUT)/$$kernel.$$target.hsaco --report --check-fidelity || exit 1; \
	done
	@for spec in $(WS_KERNELS); do \
	  file=$${spec%%:*}; target=$${spec#*:}; \
	  echo "warpsched-compile examples/$$file.mlir --target $$target -o $(OUT)/$$file.cubin --report"; \
	  $(VENV)/bin/warpsched-compile examples/$$file.mlir --target $$target -o $(OUT)/$$file.cubin --report || exit 1; \
	done
	@echo "warpsched-compile examples/hopper_gemm.mlir --target sm_90a -o $(OUT)/hopper_gemm.sm_90a.cubin"
	@$(VENV)/bin/warpsched-compile examples/hopper_gemm.mlir --target sm_90a -o $(OUT)/hopper_gemm.sm_90a.cubin
	@$(VENV)/bin/python -c "from warpsched.nvidia.backend.sass import summary; print(summary('$(OUT)/hopper_gemm.sm_90a.cubin'))"
	@for pair in $(XV_KERNELS); do \
	  file=$${pair%%:*}; kernel=$${pair##*:}; \
	  echo "warpsched-compile examples/$$file.mlir --target sm_90a --kernel $$kernel -o $(OUT)/$$file.sm_90a.cubin --report"; \
	  $(VENV)/bin/warpsched-compile examples/$$file.mlir --target sm_90a --kernel $$kernel -o $(OUT)/$$file.sm_90a.cubin --report || exit 1; \
	done
	@echo "  (LDL/STL above: the ping-pong kernel's 512 threads get 128 registers each for 256 accumulator"
	@echo "   and fragment values, so ptxas spills; expected: this sm_90a build of an AMD schedule is a"
	@echo "   correctness path, docs/crossvendor.md)"
	@echo "make demo: OK: $(words $(EXAMPLES)) schedules expanded, $(words $(AMD_KERNELS)) AMD code objects at 100% fidelity, $(NV_CUBINS) NVIDIA cubins in $(OUT)/"

# The import contracts (pyproject.toml [tool.importlinter]) are checked on a copy of the package
# as installed, build/import-tree/warpsched (grimp reads the root package's folder, and the source
# tree maps dialects/, passes/ and tools/ into it from beside compiler/); then ruff.
IMPORT_TREE := build/import-tree

lint: setup
	@rm -rf $(IMPORT_TREE) && mkdir -p $(IMPORT_TREE) && cp -r compiler $(IMPORT_TREE)/warpsched
	@for dir in dialects passes tools; do cp -r $$dir $(IMPORT_TREE)/warpsched/$$dir; done
	PYTHONPATH=$(IMPORT_TREE) $(VENV)/bin/lint-imports --config pyproject.toml --no-cache
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

lit: setup
	@if [ -d tests/lit ] && ls tests/lit/lit.cfg.py >/dev/null 2>&1; then $(VENV)/bin/lit -sv tests/lit; fi

# pytest-xdist spreads the tests over one worker per CPU (PYTEST_WORKERS=0: one process).
PYTEST_WORKERS ?= auto

pytest: setup
	@if [ "$(WARPSCHED_GPU)" = 1 ]; then echo "warpsched: an NVIDIA GPU is present; the tests marked gpu run on it (they need a Hopper GPU)"; fi
	$(PY) -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) tests

# lint, then lit, pytest last: the run ends with pytest's summary line.
test: setup
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory lit
	$(MAKE) --no-print-directory pytest

# The compile-time bench measures Triton's compile of a comparable kernel as its peer when
# WARPSCHED_TRITON_PYTHON names an interpreter with triton installed (docs/benchmarks.md).
bench: setup
	$(PY) bench/expand.py
	$(PY) bench/compile_time.py
	$(PY) bench/amd_fences.py

clean:
	rm -rf $(OUT) build dist *.egg-info tests/lit/**/Output
