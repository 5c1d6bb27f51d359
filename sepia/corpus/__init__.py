"""Target-language collections: ingestion into the store (SGML newswire, JSON lines) and lookup.
See docs/search.md."""
