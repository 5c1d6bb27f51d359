"""Target-language collections: reading collection files (SGML newswire, JSON lines) for the store,
which sepia.services.documents loads and looks up. See docs/search.md."""
