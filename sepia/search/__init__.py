"""Search over the target-language collections (see docs/search.md).

    from sepia.search import open_engine
    from sepia.services.indexing import StoredDocuments
    engine = open_engine()                      # the engine configured for the data directory
    page = engine.search("JA", "選挙管理委員会", page=1, page_size=10)
    view = engine.document("JA", page.hits[0].docid, query="選挙管理委員会")
    engine.build(StoredDocuments(store), "JA")  # index what the store has and the index lacks
"""
from sepia.search.engine import (ENGINES, BuildReport, DocumentSource, DocumentView, IndexBusy, IndexStats,
                                 SearchEngine, SearchError, SearchHit, SearchPage, Span, configured_engine, open_engine,
                                 remember_engine)

__all__ = ["ENGINES", "BuildReport", "DocumentSource", "DocumentView", "IndexBusy", "IndexStats", "SearchEngine",
           "SearchError", "SearchHit", "SearchPage", "Span", "configured_engine", "open_engine", "remember_engine"]
