# The two set-up commands of the README: `make demo` and `make test`.
# Both create (or reuse) a virtualenv in .venv and install this package into it (pyspark 4.x); `make test`
# also makes .venv-spark35 (pyspark 3.5, this package without the test extra's pyspark) for tests/spark3.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# The oldest line, pyspark 3.3, needs Python <= 3.10: run when a working python3.10 is on the machine, on the
# PATH or among pyenv's versions (a pyenv shim for a version that is not selected only prints an error).
PYTHON310 ?= $(shell for p in $$(command -v python3.10) $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.10*/bin/python3.10 2>/dev/null); do $$p -c '' >/dev/null 2>&1 && { echo $$p; break; }; done)
VENV33  ?= .venv-spark33
PY33    := $(VENV33)/bin/python
STAMP33 := $(VENV33)/.installed-stamp
VENV35  ?= .venv-spark35
PY35    := $(VENV35)/bin/python
STAMP35 := $(VENV35)/.installed-stamp
SPARK35 ?= pyspark>=3.5,<3.6
SPARK33 ?= pyspark>=3.3,<3.4
# compat: a plain .pth entry for the checkout, so Spark 4's scan of top-level pyspark_* modules (pkgutil)
# finds pyspark_pinot in the editable install as it does in a regular one.
EDITABLE := --config-settings editable_mode=compat -e
# Spark 4 starts its Python workers with PYSPARK_PYTHON: they must use the venv that has pyarrow and us.
export PYSPARK_PYTHON        := $(abspath $(PY))
export PYSPARK_DRIVER_PYTHON := $(abspath $(PY))

.PHONY: demo check test test-slow test-slow-main test-pinot test-spark35 test-spark33 test-main test-spark bench install clean

install: $(STAMP)

$(STAMP): setup.cfg setup.py pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(EDITABLE) '.[test]'
	@touch $(STAMP)

# A Spark 3 line's virtualenv: $(1) its folder, $(2) the python that makes it, $(3) its pyspark requirement;
# this package with the spark extra (no test extra: its pyspark is the 4.x line).
define spark3_venv
	$(2) -m venv $(1)
	$(1)/bin/python -m pip install --quiet --upgrade pip
	$(1)/bin/python -m pip install --quiet '$(3)' 'pytest>=8' 'pytest-timeout>=2.2'
	$(1)/bin/python -m pip install --quiet $(EDITABLE) '.[spark]'
	@touch $(1)/.installed-stamp
endef

$(STAMP35): setup.cfg setup.py pyproject.toml
	$(call spark3_venv,$(VENV35),$(PYTHON),$(SPARK35))

$(STAMP33): setup.cfg setup.py pyproject.toml
	$(call spark3_venv,$(VENV33),$(PYTHON310),$(SPARK33))

demo: $(STAMP)
	@$(PY) -m pinot_sink.java_check
	$(PY) examples/local_backfill.py

# Spread over the machine's cores (pytest-xdist) where no Spark session is started: a test either needs the one
# shared Spark session (marked spark, conftest.py) or it does not, and only the latter run side by side.
XDIST ?= -n auto
PYTEST := $(PY) -m pytest -q -p no:cacheprovider

# The edit loop (3 minutes or less on 2 cores): no Spark session, no JVM, nothing slow (and no real cluster:
# tests marked pinot run in `make test-pinot`, where that target exists).
check: $(STAMP)
	$(PYTEST) $(XDIST) -m "not slow and not spark and not jvm and not pinot" $(PYTEST_ARGS)

# The developer's loop (10 minutes or less on a fresh 2-core machine, CONTRIBUTING.md has the figures): every
# test but those marked slow, in stages: the Spark-free tests across the cores (the Java comparisons with one
# JVM per worker), the Spark ones on one shared session, then the Spark 3 lines. Every stage runs even when one
# fails; the failed stages are listed at the end and the exit status is non-zero. The slow ones (a Spark driver
# or cluster of their own, a memory bound over hundreds of MB, a 2 GB function case) run in `make test-slow`;
# CI (.ci/run) runs both.
# Run the stages $(1) one after the other, each even when one before failed; list the failed ones at the end.
define stages
	@failed=""; for stage in $(1); do \
		$(MAKE) --no-print-directory $$stage $(2) || failed="$$failed $$stage"; \
	done; \
	if [ -n "$$failed" ]; then echo "make $@: FAILED:$$failed" >&2; exit 1; fi; echo "make $@: all stages passed"
endef

test: $(STAMP) $(STAMP35)
	@$(PY) -m pinot_sink.java_check
	$(call stages,test-main test-spark test-spark33 test-spark35)

test-main: $(STAMP)
	$(PYTEST) $(XDIST) -m "not slow and not spark and not pinot" $(PYTEST_ARGS)

test-spark: $(STAMP)
	$(PYTEST) -m "spark and not slow and not pinot" $(PYTEST_ARGS)

# The slow ones: on pyspark 4.x, then tests/spark3's on the Spark 3 lines (a Spark job in a fresh process each).
test-slow: $(STAMP) $(STAMP35)
	@$(PY) -m pinot_sink.java_check
	$(call stages,test-slow-main test-spark33 test-spark35,SPARK3_MARKS=slow)

test-slow-main: $(STAMP)
	$(PYTEST) -m "slow and not pinot" $(PYTEST_ARGS)

# The real-Pinot tier (tests/pinot): starts a Pinot cluster from ../shared/pinot-cluster/dist (or
# PINOT_CLUSTER_HOME), runs the tests marked pinot against it, stops it; fails in one line without a cluster.
test-pinot: $(STAMP)
	@$(PY) -m pinot_sink.java_check
	tests/pinot/run.sh $(PY) $(PYTEST_ARGS)

# The Spark 3 line: pinot_sink.write through mapInArrow on pyspark 3.5 (what EMR / Dataproc / Databricks LTS run).
# tests/spark3 but its slow tests in `make test`, its slow ones in `make test-slow` (SPARK3_MARKS).
SPARK3_MARKS ?= not slow
test-spark35: $(STAMP35)
	PYSPARK_PYTHON=$(abspath $(PY35)) PYSPARK_DRIVER_PYTHON=$(abspath $(PY35)) \
		$(PY35) -m pytest -q -p no:cacheprovider -m "$(SPARK3_MARKS)" tests/spark3

test-spark33:
ifeq ($(PYTHON310),)
	@echo "test-spark33: no python3.10 on this machine (pyspark 3.3 predates Python 3.11); the 3.3 line is not run"
else
	$(MAKE) --no-print-directory $(STAMP33)
	PYSPARK_PYTHON=$(abspath $(PY33)) PYSPARK_DRIVER_PYTHON=$(abspath $(PY33)) \
		$(PY33) -m pytest -q -p no:cacheprovider -m "$(SPARK3_MARKS)" tests/spark3
endif

bench: $(STAMP)
	@$(PY) -m pinot_sink.java_check
	$(PY) bench/segment_build.py
	$(PY) bench/upload.py
	$(PY) bench/spark_write.py

clean:
	rm -rf $(VENV) $(VENV33) $(VENV35) build *.egg-info .pytest_cache
