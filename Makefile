# The two commands of the README: `make demo` and `make test`. Each creates .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WEB := fairdeal/web
WEB_BUILT := $(WEB)/static/vendor/.built

.PHONY: demo test lint wheel-test docs bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# libdecaf (ristretto255 arithmetic) for the mental-poker verifier's multi-scalar multiplication; as root on Debian
# it is installed here, elsewhere fairdeal builds without it and verifies more slowly.
$(STAMP): pyproject.toml setup.py fairdeal/protocols/_msm.c fairdeal/solver/_dds.c fairdeal/audit/_kernels.c $(WEB_BUILT) | $(BIN)/python
	@test -f /usr/include/decaf/decaf/point_255.h || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libdecaf-dev >/dev/null; } || \
		echo "note: libdecaf-dev is not installed; mental-poker verification falls back to libsodium alone"
	@# fairdeal serve's tests: Debian's Chromium (the browser end-to-end test) and PostgreSQL (a throwaway cluster)
	@{ test -x /usr/bin/chromium && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; } || \
		{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium postgresql >/dev/null; } || \
		echo "note: chromium or postgresql is missing; the fairdeal serve tests need both"
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The browser verifier's multi-scalar multiplication ($(WEB)/mental_poker/msm_wasm.c): libsodium's own ref10
# arithmetic, from the libsodium source that PyNaCl's sdist bundles, compiled by Debian's clang against wasi-libc
# into a WebAssembly module that imports nothing; esbuild bundles it into the page's script (below).
NACL_SDIST := 1.6.2
MSM_WASM := build/wasm/msm.wasm
LIBSODIUM := build/wasm/pynacl-$(NACL_SDIST)/src/libsodium/src/libsodium
$(MSM_WASM): $(WEB)/mental_poker/msm_wasm.c fairdeal/protocols/msm_buckets.h | $(BIN)/python
	@{ command -v clang >/dev/null && command -v wasm-ld >/dev/null && test -d /usr/include/wasm32-wasi && \
		ls /usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a >/dev/null 2>&1; } || \
		{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang lld wasi-libc libclang-rt-dev-wasm32 >/dev/null; }
	rm -rf build/wasm && mkdir -p build/wasm
	$(BIN)/python -m pip download --quiet --no-binary :all: --no-deps --dest build/wasm pynacl==$(NACL_SDIST)
	tar -xzf build/wasm/pynacl-$(NACL_SDIST).tar.gz -C build/wasm --wildcards \
		'*/src/libsodium/src/libsodium/crypto_core/ed25519/ref10/*' '*/src/libsodium/src/libsodium/include/*'
	clang --target=wasm32-wasi -O3 -std=c11 -nostartfiles -Wno-\#warnings -I$(LIBSODIUM) -I$(LIBSODIUM)/include/sodium \
		-Ifairdeal/protocols -Wl,--no-entry -Wl,--strip-all -Wl,--gc-sections -o $@ $<

# The browser client's JavaScript (@noble/curves, @noble/hashes) from the lockfile, copied as ES modules into the
# package data; no bundler, so what the browser runs is byte for byte what npm installed. The offline verifier page
# opens from file://, where browsers import no modules from other files: esbuild (pinned in the lockfile) bundles
# the same @noble code and libsodium-wrappers-sumo (the mental poker's ristretto255, its WebAssembly inline as
# base64) into one classic script that the page inlines; the page is also what `fairdeal serve` shows at /verifier
# and what the Node tools in fairdeal/web/bin run, so no served module imports libsodium on its own.
$(WEB_BUILT): $(WEB)/package.json $(WEB)/package-lock.json $(WEB)/verifier/noble.js $(MSM_WASM)
	cd $(WEB) && npm ci --no-audit --no-fund --silent
	rm -rf $(WEB)/static/vendor && mkdir -p $(WEB)/static/vendor/curves $(WEB)/static/vendor/hashes
	cp -r $(WEB)/node_modules/@noble/curves/esm/. $(WEB)/static/vendor/curves/
	cp -r $(WEB)/node_modules/@noble/hashes/esm/. $(WEB)/static/vendor/hashes/
	find $(WEB)/static/vendor \( -name '*.map' -o -name '*.d.ts' \) -delete
	$(WEB)/node_modules/.bin/esbuild $(WEB)/verifier/noble.js --bundle --format=iife --legal-comments=inline \
		--loader:.wasm=binary --log-level=warning --outfile=$(WEB)/static/vendor/noble-verifier.js
	touch $@

# The offline verifier page (package data): the bundle, the verifier, the registry's decks and deal patterns, and
# Pyodide with the engine's modules (the page replays records with them) inline in one HTML file; rebuilt when any
# of them changes.
VERIFIER_PAGE := $(WEB)/static/vendor/verifier.html
$(VERIFIER_PAGE): $(STAMP) $(WEB_BUILT) $(wildcard $(WEB)/verifier/*) $(wildcard $(WEB)/mental_poker/*.js) \
		$(wildcard fairdeal/*.py fairdeal/*/*.py fairdeal/*/*/*.py)
	$(BIN)/python -m fairdeal.web.verifier_page

demo: $(STAMP) $(VERIFIER_PAGE)
	$(BIN)/python -m fairdeal.demo_job

# Both suites spread over every core (pytest-xdist, stealing work from a slow worker); the tests take free ports
# and their own temporary folders, so workers share nothing.
PYTEST_PARALLEL := -n auto --dist worksteal

test: $(STAMP) $(VERIFIER_PAGE)
	$(MAKE) lint
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)
	$(MAKE) wheel-test

# Style and types (settings in pyproject.toml): lint findings, unformatted files and mypy --strict errors fail;
# ESLint's recommended rules over the browser client, the verifier page and the Node tools (fairdeal/web/eslint.config.js).
LINTED := fairdeal tests benchmarks
lint: $(STAMP) $(WEB_BUILT)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy --strict
	cd $(WEB) && node_modules/.bin/eslint .

# The package as a user gets it: sdist, then a wheel built from it, installed in a fresh venv, and the whole suite
# run against that install from another folder (so nothing is read from the checkout by accident).
WHEEL_VENV := build/wheel-venv
wheel-test: $(STAMP) $(VERIFIER_PAGE)
	rm -rf build/dist $(WHEEL_VENV) build/wheel-cwd
	mkdir -p build
	$(BIN)/python -m build --outdir build/dist . >build/build.log 2>&1 || { cat build/build.log; exit 1; }
	! grep -i "deprecat" build/build.log
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install --quiet "$$(ls build/dist/fairdeal-*.whl)[test]"
	mkdir -p build/wheel-cwd
	cd build/wheel-cwd && FAIRDEAL_WHEEL_TEST=1 ../wheel-venv/bin/python -m pytest -p no:cacheprovider -x $(PYTEST_PARALLEL) $(CURDIR)/tests

# The API reference (mkdocs + mkdocstrings), warnings as errors.
docs: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	$(BIN)/python -m mkdocs build --strict --site-dir build/site

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
