# Two commands on a fresh machine: `make demo` and `make test`. Each sets up .venv itself.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# PyTorch is pinned to the CPU wheel: a plain `torch` requirement pulls a multi-GB CUDA build.
TORCH := torch==2.13.0

.PHONY: demo test test-fast lint bench dist clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.demo-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -e ".[local]"
	touch $@

# The HTML report's browser test drives the system's Chromium through Playwright (which is
# never asked to download a browser): installed here from Debian's package where it is missing
# and we may (root, apt-get); where we may not, that one test is skipped and says why.
$(VENV)/.test-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -e ".[dev,local,sentence-transformers,anthropic,langchain,llamaindex,pdf]"
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		( apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends chromium ) >/dev/null 2>&1 \
		|| echo "note: chromium could not be installed: the HTML report's browser test is skipped"; \
	fi
	touch $@

# The example suite against the demo RAG app, over its questions and its conversations. The
# app is deliberately imperfect, so the run reports failures: exit codes 1 (a failure) and 2
# (a critical failure) are the expected outcome of the demo; anything else means the demo
# itself is broken. Then `rag-eval generate` writes a test set from the demo app's documents,
# offline; it failing breaks the demo (exit 3).
demo: $(VENV)/.demo-deps
	@cd examples && ../$(BIN)/python -m pytest --rag-dataset dataset.json \
		--rag-dataset conversations.json -p no:randomly; \
	code=$$?; \
	echo ""; \
	echo "demo finished with exit code $$code (the demo app is imperfect on purpose)."; \
	echo "reports: examples/results/eval_report.md, examples/results/eval_report.json,"; \
	echo "         history: examples/results/results.jsonl"; \
	echo "open in a browser: examples/results/eval_report.html (one self-contained page)"; \
	echo ""; \
	echo "No dataset yet? rag-eval generate writes one from your documents (offline here):"; \
	../$(BIN)/python -m rag_eval_pytest.cli generate demo_rag/docs --output results/generated.json \
		--count 10 --judge local --force || exit 3; \
	test $$code -le 2

# The whole suite, both lanes, on one pytest-xdist worker per CPU and one more, at most 8
# (each loads torch and the local model): some tests wait on a server or a timeout, and the
# extra worker runs meanwhile. On 2 CPUs, `time make test TEST_WORKERS=N` took 5:13 with 3
# workers, 5:28 with 2 and 5:38 with 4, before the suite's later cuts (every worker collects
# the whole suite, and more of them crowd the CPUs' caches).
# Whole files go to a worker (loadfile): the tests of a file that builds venvs share them,
# built once. Files go out in the order the suite sorts them (--no-loadscope-reorder;
# tests/conftest.py): those marked `slow` first, then the files with the most tests. xdist's
# own order (most tests first) started the two slowest files (the install matrix and the CI
# docs) last, and they ran alone for the final minute.
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print(min(8, (os.cpu_count() or 1) + 1))")
# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: each xdist worker and each
# pytest the tests start in a subprocess then reads the plugin's and the tests' compiled (and
# assertion-rewritten) modules instead of compiling them again (a second each).
test: $(VENV)/.test-deps
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile \
		--no-loadscope-reorder

# The unit lane (tests/unit, the same tests as -m "not integration"): no pytest run inside a
# test, no server, no model; seconds (bytecode kept, as for make test: about 18 s here, 45 s
# when every process compiles the plugin again).
test-fast: $(VENV)/.test-deps
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest tests/unit -q

lint: $(VENV)/.test-deps
	$(BIN)/ruff check src tests examples benchmarks
	$(BIN)/ruff format --check src tests examples benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

# The wheel and the sdist a release would publish, with their metadata checked.
dist: $(VENV)/.test-deps
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	$(BIN)/twine check --strict dist/*

bench: $(VENV)/.test-deps
	$(BIN)/python benchmarks/dormant_overhead.py

clean:
	rm -rf $(VENV) dist build examples/results results .pytest_cache .mypy_cache .ruff_cache
