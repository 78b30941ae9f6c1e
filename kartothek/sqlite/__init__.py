"""Django's SQLite backend, with the writers of one process queueing on a lock (``base.py``)."""
