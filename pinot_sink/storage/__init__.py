"""The storage room: where a table's segment files live and how they move.

* ``layout``: the folder layout (tarballs, ``_staging/``, ``_manifests/``) and the one quoting rule for
  names in URIs;
* ``files``: copying tarballs, publishing staged ones into a table's folder, small text files, listings;
* ``staging``: a write's staging (the private root, a task attempt's folder);
* ``tarballs``: what a segment tarball says about itself (metadata, time range);
* ``manifests``: a write's records (``_manifests/<run folder>.json``);
* ``stores``: one ``SegmentStore`` interface, a directory and a controller implementation, chosen once.

Below the job floor (it knows nothing of a write's options, tasks or commit) and beside the controller:
the controller's push copies tarballs into a deep store through ``files``, and ``stores`` talks to the
controller. Import the modules themselves; this package re-exports nothing.
"""
# Loaded first, whichever module of the two rooms is imported first: the controller package's push imports
# ``files`` and ``layout``, which raise the controller's DeepStoreError (a retryable ControllerError), so the
# controller package must be complete before they are.
import pinot_sink.controller  # noqa: F401
