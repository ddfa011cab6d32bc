# Every target installs what it needs: `make demo` and `make test` work on a fresh machine.
SHELL := /bin/bash
# scripts/uv finds uv wherever the installer put it, so one make run can install it and use it.
UV := $(CURDIR)/scripts/uv
export UV

.PHONY: setup test unit contract contract-http lint specs demo fuzz bench claude-e2e claude-http-check

# Bytecode is compiled here, once: the contract suite starts a server process some 250 times, and without .pyc
# files every start compiles the MCP SDK, pydantic and the servers again (about 1.5 CPU-seconds of the 2.5 a start
# costs). Python writes no .pyc of its own where PYTHONDONTWRITEBYTECODE is set, as on this machine; compiling at
# install time is what pip does by default. compileall skips files whose .pyc is current.
setup:
	@./scripts/install-uv.sh
	@"$(UV)" sync --locked --quiet --compile-bytecode
	@"$(UV)" run --locked --quiet python -m compileall -q servers/gmail/src servers/obsidian/src emulators/gmail/src

# HTTP_PYTEST_ARGS: extra arguments for the HTTP pass only (CI gives it its own JUnit report).
# WORKERS: pytest-xdist processes. The contract tests spend much of their time starting servers and waiting on
# them, so one more worker than this 2-core machine's cores keeps both busy (tests/contract/README.md).
# worksteal: a worker that runs out of tests takes queued ones from the others, so the run does not end with
# one worker busy on a queue of slow contract tests while the rest idle.
WORKERS ?= 3
XDIST = -n $(WORKERS) --dist worksteal
test: setup lint
	"$(UV)" run --locked pytest -q $(XDIST)
	CONTRACT_TRANSPORT=http "$(UV)" run --locked pytest -q $(XDIST) tests/contract $(HTTP_PYTEST_ARGS)

unit: setup
	"$(UV)" run --locked pytest -q $(XDIST) servers emulators

contract: setup
	"$(UV)" run --locked pytest -q $(XDIST) tests/contract

# The contract suite again, every server started with --transport http (stdio-only tests are skipped, with their reason).
contract-http: setup
	CONTRACT_TRANSPORT=http "$(UV)" run --locked pytest -q $(XDIST) tests/contract

lint: setup
	"$(UV)" run --locked ruff check .
	"$(UV)" run --locked ruff format --check .
	"$(UV)" run --locked mypy

specs: setup
	"$(UV)" run --locked python scripts/specs.py

demo: setup
	"$(UV)" run --locked python scripts/demo.py

fuzz: setup
	FUZZ_EXAMPLES=3000 CRASH_ITERATIONS=60 "$(UV)" run --locked pytest -q tests/contract/test_fuzz.py tests/contract/test_obsidian_crash.py

bench: setup
	"$(UV)" run --locked python bench/startup.py
	"$(UV)" run --locked python bench/gmail_search.py
	"$(UV)" run --locked python bench/gmail_bulk.py
	"$(UV)" run --locked python bench/obsidian_search.py
	"$(UV)" run --locked python bench/search_quality.py
	"$(UV)" run --locked python bench/obsidian_query.py
	"$(UV)" run --locked python bench/dataview_eval.py
	"$(UV)" run --locked python bench/tokenizer.py
	"$(UV)" run --locked python bench/obsidian_vaults.py
	"$(UV)" run --locked python bench/http_load.py
	"$(UV)" run --locked --with pypdf --with pdfminer.six python bench/documents.py

# Not part of `make test`/CI: the real Claude Code CLI (pinned in scripts/claude_e2e/package-lock.json,
# fetched once with npm ci) against a scripted fake Messages API; see scripts/claude_e2e/README.md.
claude-e2e: setup
	"$(UV)" run --locked python scripts/claude_e2e/run.py

# Not part of `make test`/CI: the same pinned CLI connects to both servers over HTTP with a bearer token
# (`claude mcp add --transport http … --header` then `claude mcp list` must show ✔ Connected for both).
claude-http-check: setup
	"$(UV)" run --locked python scripts/claude_e2e/http_check.py
