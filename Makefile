# The two set-up commands of the README: `make demo` and `make test`.
# Both create (or reuse) a virtualenv in .venv and install this package into it (pyspark 4.x); `make test`
# also makes .venv-spark35 (pyspark 3.5, this package without the test extra's pyspark) for tests/spark3.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
VENV35  ?= .venv-spark35
PY35    := $(VENV35)/bin/python
STAMP35 := $(VENV35)/.installed-stamp
SPARK35 ?= pyspark>=3.5,<3.6
# compat: a plain .pth entry for the checkout, so Spark 4's scan of top-level pyspark_* modules (pkgutil)
# finds pyspark_pinot in the editable install as it does in a regular one.
EDITABLE := --config-settings editable_mode=compat -e
# Spark 4 starts its Python workers with PYSPARK_PYTHON: they must use the venv that has pyarrow and us.
export PYSPARK_PYTHON        := $(abspath $(PY))
export PYSPARK_DRIVER_PYTHON := $(abspath $(PY))

.PHONY: demo test test-spark35 bench install clean

install: $(STAMP)

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(EDITABLE) '.[test]'
	@touch $(STAMP)

$(STAMP35): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV35)
	$(PY35) -m pip install --quiet --upgrade pip
	$(PY35) -m pip install --quiet '$(SPARK35)' 'pytest>=8' 'pytest-timeout>=2.2'
	$(PY35) -m pip install --quiet $(EDITABLE) '.[spark]'
	@touch $(STAMP35)

demo: $(STAMP)
	@$(PY) -m pinot_sink.java_check
	$(PY) examples/local_backfill.py

test: $(STAMP) $(STAMP35)
	@$(PY) -m pinot_sink.java_check
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)
	$(MAKE) --no-print-directory test-spark35

# The Spark 3 line: pinot_sink.write through mapInArrow on pyspark 3.5 (what EMR / Dataproc / Databricks LTS run).
test-spark35: $(STAMP35)
	PYSPARK_PYTHON=$(abspath $(PY35)) PYSPARK_DRIVER_PYTHON=$(abspath $(PY35)) \
		$(PY35) -m pytest -q -p no:cacheprovider tests/spark3

bench: $(STAMP)
	@$(PY) -m pinot_sink.java_check
	$(PY) bench/segment_build.py
	$(PY) bench/upload.py
	$(PY) bench/spark_write.py

clean:
	rm -rf $(VENV) $(VENV35) build *.egg-info .pytest_cache
