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

# Until the search lands (issue 4): judge the bundled hand-written candidate, then let the built-in proposer
# write and judge its own candidates for the same module.
demo: $(STAMP)
	rm -rf out/demo
	$(VENV)/bin/adaexplore optimize $(EXAMPLE) --steps 12 --out out/demo
	@echo; cat out/demo/summary.md

test: $(STAMP)
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info
