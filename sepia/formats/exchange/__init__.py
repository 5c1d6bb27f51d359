"""One module per XML exchange format: its reader and its writer (sepia/formats/registry.py lists them)."""
