"""Metadata lives in setup.cfg; this file only ships ``pinot_sink_spark_python.pth`` into site-packages.

Why: Spark 4 looks ``format("pinot")`` up in a Python worker it starts with ``$PYSPARK_PYTHON``, else
``$PYSPARK_DRIVER_PYTHON``, else the ``python3`` on PATH, read from the JVM's environment when the JVM starts.
A job run as ``.venv/bin/python job.py`` (venv not activated, nothing set) would get a worker without
pyspark or this package: ``DATA_SOURCE_NOT_FOUND`` before any of our code runs. The ``.pth`` line runs at
the start of every interpreter of the environment the package is installed in, and, when neither variable is
set, sets ``PYSPARK_DRIVER_PYTHON`` to that interpreter (what the driver runs; nothing on the Python side of
pyspark reads it, so configured executors' Pythons are untouched). A ``.pth`` may hold no comments on an
``import`` line, hence this note.
"""
from __future__ import annotations

import os

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "pinot_sink_spark_python.pth"
HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithPth(build_py):
    """build_py plus the ``.pth`` at the root of the built tree: a wheel's purelib root is site-packages."""

    def run(self):
        super().run()
        self.copy_file(os.path.join(HERE, PTH), os.path.join(self.build_lib, PTH), preserve_mode=0)
        if getattr(self, "editable_mode", False):
            # an editable wheel holds the project's path, not build_lib; what it installs as files is what
            # setuptools put in the unpacked wheel, which is the install command's install_lib then
            target = self.get_finalized_command("install").install_lib
            self.copy_file(os.path.join(HERE, PTH), os.path.join(target, PTH), preserve_mode=0)

    def get_outputs(self, include_bytecode=1):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]

    def get_output_mapping(self):  # setuptools' editable installs read this (PEP 660)
        mapping = dict(super().get_output_mapping())
        mapping[os.path.join(self.build_lib, PTH)] = os.path.join(HERE, PTH)
        return mapping


setup(cmdclass={"build_py": BuildWithPth})
