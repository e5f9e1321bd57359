# The two commands of the README: `make demo` and `make test`. Each creates .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# libdecaf (ristretto255 arithmetic) for the mental-poker verifier's multi-scalar multiplication; as root on Debian
# it is installed here, elsewhere fairdeal builds without it and verifies more slowly.
$(STAMP): pyproject.toml setup.py fairdeal/protocols/_msm.c fairdeal/solver/_dds.c | $(BIN)/python
	@test -f /usr/include/decaf/decaf/point_255.h || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libdecaf-dev >/dev/null; } || \
		echo "note: libdecaf-dev is not installed; mental-poker verification falls back to libsodium alone"
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m fairdeal.demo_job

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
