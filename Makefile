# Two entry points: `make demo` and `make test`. Each builds .venv on first use.
#
# PYTHON: the interpreter the virtual environment is made from. When it already has torch (for example a
# CUDA build), the venv sees it through --system-site-packages and it is left alone; otherwise the CPU build
# torch==$(CPU_TORCH) is installed into the venv.
PYTHON ?= python3
CPU_TORCH ?= 2.13.0
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test clean

$(STAMP): pyproject.toml
	@if [ ! -x $(PY) ]; then \
	  if $(PYTHON) -c "import torch" 2>/dev/null; then \
	    echo "Using the torch of $(PYTHON) (left as it is)"; $(PYTHON) -m venv --system-site-packages $(VENV); \
	  else \
	    $(PYTHON) -m venv $(VENV); \
	  fi; \
	fi
	$(PY) -m pip install -q --upgrade pip
	@$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==$(CPU_TORCH)
	$(PY) -m pip install -q -e ".[dev]"
	@touch $(STAMP)

EXAMPLE := adaexplore_core/examples/fused_bias_gelu.py

# The main job on the bundled example: a 12-step AdaExplore search with the built-in proposer (on a CPU-only
# machine: validity through the Triton interpreter, no timing).
demo: $(STAMP)
	rm -rf out/demo
	$(VENV)/bin/adaexplore optimize $(EXAMPLE) --steps 12 --out out/demo
	@echo; cat out/demo/summary.md

EXT := vscode-extension

# Python tests, then the VS Code extension's lint, tests (its protocol test drives the real server with the
# venv's Python), packaging into $(EXT)/dist/adaexplore-<version>.vsix, and its end-to-end test in code-server and
# headless chromium when the pieces $(EXT)/e2e/setup.sh installs are present (run.sh exits 2, loudly, when they
# are not). Without npm the extension part is skipped, loudly.
test: $(STAMP)
	$(PY) -m pytest -q
	@if command -v npm >/dev/null 2>&1; then \
	  cd $(EXT) && npm ci --no-audit --no-fund --loglevel=error && npm run lint && \
	  ADAEXPLORE_PYTHON="$(abspath $(PY))" npm test && npm run package && \
	  { ADAEXPLORE_PYTHON="$(abspath $(PY))" bash e2e/run.sh; rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 2 ]; }; \
	else \
	  echo "WARNING: npm not found: the VS Code extension was NOT tested or packaged"; \
	fi

clean:
	rm -rf $(VENV) build *.egg-info $(EXT)/node_modules $(EXT)/dist
