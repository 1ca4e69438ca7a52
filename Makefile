# heightbench — two commands:
#   make reproduce   set up what is missing, then run the main job (results under reports/)
#   make test        set up what is missing, type-check, run every test; ends with "N passed, N failed"
# Setup is stamp-based: a second run does nothing unless package-lock.json, requirements.txt or src/ changed.
# Nothing is written to the home directory: every cache and Jupyter folder lives under .cache/ or jupyter/.

SHELL := /bin/bash
.DEFAULT_GOAL := test

export npm_config_cache ?= $(CURDIR)/.cache/npm
export npm_config_update_notifier := false
export npm_config_fund := false
export npm_config_audit := false
export PIP_CACHE_DIR := $(CURDIR)/.cache/pip
export PIP_DISABLE_PIP_VERSION_CHECK := 1
export JUPYTER_PATH := $(CURDIR)/jupyter
export JUPYTER_CONFIG_DIR := $(CURDIR)/jupyter/config
export JUPYTER_DATA_DIR := $(CURDIR)/.cache/jupyter-data
export JUPYTER_RUNTIME_DIR := $(CURDIR)/.cache/jupyter-runtime
export JUPYTER_PLATFORM_DIRS := 1
export JUPYTERLAB_SETTINGS_DIR := $(CURDIR)/.cache/jupyterlab/settings
export JUPYTERLAB_WORKSPACES_DIR := $(CURDIR)/.cache/jupyterlab/workspaces
export IPYTHONDIR := $(CURDIR)/.cache/ipython
export XDG_CACHE_HOME := $(CURDIR)/.cache/xdg-cache
export XDG_CONFIG_HOME := $(CURDIR)/.cache/xdg-config
export XDG_DATA_HOME := $(CURDIR)/.cache/xdg-data
export DVC_NO_ANALYTICS := 1
export PATH := $(CURDIR)/.venv/bin:$(CURDIR)/node_modules/.bin:$(PATH)

NODE_STAMP := node_modules/.install-stamp
VENV_STAMP := .venv/.install-stamp
VENV_PKG := .venv/package.json
DIST_STAMP := dist/.build-stamp
PEERS_STAMP := .cache/peers-stamp
CHROMIUM_STAMP := .cache/chromium-stamp
BENCH_PEERS_STAMP := .cache/bench-peers-stamp
SRC := $(shell find src -name '*.ts' 2>/dev/null)

.PHONY: setup test reproduce typecheck build bench clean peers regress lint references lab

setup: $(NODE_STAMP) $(VENV_STAMP) $(VENV_PKG) $(DIST_STAMP) $(PEERS_STAMP) $(CHROMIUM_STAMP)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(VENV_STAMP): requirements.txt
	python3 -m venv .venv
	.venv/bin/pip install --quiet -r requirements.txt
	@touch $@

# The venv lies inside this package, whose package.json says "type": "module": without a package.json of its own,
# node would load the venv's CommonJS scripts (JupyterLab's bundled yarn.js) as ES modules and they fail (JupyterLab
# then prints yarn.js's minified source at every start).
$(VENV_PKG): $(VENV_STAMP)
	echo '{ "type": "commonjs" }' > $@

# scripts/build-dist.mjs: incremental tsc (the same bytes as a build from nothing), stale outputs removed, the pages'
# browser scripts and the CLI bundle.
$(DIST_STAMP): $(SRC) tsconfig.json tsconfig.build.json scripts/bundle-cli.mjs scripts/bundle-pages.mjs scripts/build-dist.mjs bin/source-check.mjs $(NODE_STAMP)
	node scripts/build-dist.mjs
	@touch $@

# External peer tools used by tests (ImageMagick, netpbm, optipng), installed only when missing.
$(PEERS_STAMP): scripts/ensure-debian-peers.sh
	bash scripts/ensure-debian-peers.sh
	@mkdir -p $(dir $@) && touch $@

peers: $(PEERS_STAMP)

# Debian chromium (SwiftShader for the GPU reference's Dawn host, the headless browser host, and make test's browser checks), installed only when missing.
$(CHROMIUM_STAMP): scripts/ensure-chromium.sh
	bash scripts/ensure-chromium.sh
	@mkdir -p $(dir $@) && touch $@

build: $(DIST_STAMP)

typecheck: $(NODE_STAMP)
	node node_modules/typescript/bin/tsc -p tsconfig.json --noEmit

# Formatter and linter (Prettier, ESLint; configs in the repository root), checked on every make test.
lint: $(NODE_STAMP)
	node node_modules/prettier/bin/prettier.cjs --check --log-level warn src test bench scripts vitest.config.ts eslint.config.mjs
	node node_modules/eslint/bin/eslint.js src

test: setup typecheck lint
	node scripts/run-tests.mjs

reproduce: setup
	node scripts/reproduce.mjs

# The DVC-tracked references: pull what the configured remote holds (`dvc remote list`; README "Bring your own
# reference" says how to point it at S3, SSH or HTTP storage), then regenerate only what is still missing — dvc repro
# skips every reference stage whose outputs match dvc.lock.
references: setup
	dvc pull --allow-missing || echo "references: the remote does not hold every reference; regenerating what is missing"
	dvc repro --glob 'reference@*' 'gpu@*'

# JupyterLab on 127.0.0.1 (LAB_PORT) rooted at this repository, opened on notebooks/, with the settings of
# jupyter/config/jupyter_server_config.json (tslab the default kernel, each notebook listed once as its .ipynb). The
# .ipynb files are written from their .nb.ts sources and paired with them by jupytext (notebooks/jupytext.toml), so a
# cell saved in JupyterLab lands in the .nb.ts.
LAB_PORT ?= 8888
lab: setup
	.venv/bin/python scripts/notebooks.py sync
	.venv/bin/jupyter-lab --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) --ServerApp.root_dir=$(CURDIR) $(if $(filter 0,$(shell id -u)),--allow-root)

# This tree's reports against a base revision's (BASE=main for a pull request): Markdown here, HTML in reports/regress/.
BASE ?= HEAD
regress: setup
	node bin/heightbench.mjs regress --base $(BASE)

# The benchmark's numpy/OpenCV peer (Debian python3-numpy, python3-opencv), installed only when missing.
$(BENCH_PEERS_STAMP): scripts/ensure-debian-peers.sh
	bash scripts/ensure-debian-peers.sh --bench
	@mkdir -p $(dir $@) && touch $@

bench: setup $(BENCH_PEERS_STAMP)
	npm run --silent bench

clean:
	rm -rf dist .cache reports/*.html reports/real-data
