# The two set-up commands of the README: `make demo` and `make test`.
# Both create (or reuse) a virtualenv in .venv and install this package into it.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# Spark 4 starts its Python workers with PYSPARK_PYTHON: they must use the venv that has pyarrow and us.
export PYSPARK_PYTHON        := $(abspath $(PY))
export PYSPARK_DRIVER_PYTHON := $(abspath $(PY))

.PHONY: demo test bench install clean

install: $(STAMP)

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

demo: $(STAMP)
	@$(PY) -m pinot_sink.java_check
	$(PY) examples/local_backfill.py

test: $(STAMP)
	@$(PY) -m pinot_sink.java_check
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

bench: $(STAMP)
	@$(PY) -m pinot_sink.java_check
	$(PY) bench/segment_build.py
	$(PY) bench/upload.py
	$(PY) bench/spark_write.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
