"""Search over the target-language collections (see docs/search.md).

    from sepia.search import open_engine
    engine = open_engine()
    page = engine.search("JA", "選挙管理委員会", page=1, page_size=10)
    view = engine.document("JA", page.hits[0].docid, query="選挙管理委員会")
"""
from sepia.search.engine import (DocumentView, SearchEngine, SearchError, SearchHit, SearchPage, Span,
                                 open_engine)

__all__ = ["DocumentView", "SearchEngine", "SearchError", "SearchHit", "SearchPage", "Span", "open_engine"]
