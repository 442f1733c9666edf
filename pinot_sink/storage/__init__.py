"""The storage room: where a table's segment files live and how they move.

* ``layout``: the folder layout (tarballs, ``_staging/``, ``_manifests/``), the one quoting rule for
  names in URIs, and the room's error (``StorageError``);
* ``files``: copying tarballs, publishing staged ones into a table's folder, small text files, listings;
* ``staging``: a write's staging (the private root, a task attempt's folder);
* ``tarballs``: what a segment tarball says about itself (metadata, time range);
* ``manifests``: a write's records (``_manifests/<run folder>.json``);
* ``stores``: one ``SegmentStore`` interface and the folder implementation (the controller's is
  ``pinot_sink.controller.store``).

Below the controller and the job floor: it knows nothing of a controller, a write's options, tasks or commit;
the controller's push copies tarballs into a deep store through ``files`` and ``layout``. Import the modules
themselves; this package re-exports nothing.
"""
