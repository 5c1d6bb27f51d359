"""The web tool's pages: every blueprint, and the links each puts in the top bar for which roles.
create_app registers the blueprints in this order and base.html draws each role's links in it, so a
new page is one entry here (docs/architecture.md)."""
from __future__ import annotations

import importlib
from functools import cache
from typing import NamedTuple

from flask import Blueprint, Request

ORGANISER = frozenset({"organiser"})
EDITORS = frozenset({"organiser", "topic_developer"})
ASSESSOR = frozenset({"assessor"})
PARTICIPANT = frozenset({"participant"})


class NavLink(NamedTuple):
    endpoint: str            # "blueprint.view", a view without URL arguments
    label: str
    roles: frozenset[str]    # who sees the link; each must be allowed by the view (tests keep it so)
    whole_blueprint: bool = True  # marked current on every page of its blueprint, else on its own only

    def is_current(self, request: Request) -> bool:
        if self.whole_blueprint:
            return request.blueprint == self.endpoint.partition(".")[0]
        return request.endpoint == self.endpoint


class Page(NamedTuple):
    module: str                       # the module whose `bp` is the blueprint
    links: tuple[NavLink, ...] = ()


PAGES = (
    Page("sepia.web.auth"),
    Page("sepia.web.topics", (NavLink("topics.index", "Topics", EDITORS),)),
    Page("sepia.web.nuggets", (NavLink("nuggets.index", "Nuggets", EDITORS),)),
    Page("sepia.web.votes", (NavLink("votes.index", "Voting", ASSESSOR),
                             NavLink("votes.overview", "Votes & gold", ORGANISER, whole_blueprint=False))),
    Page("sepia.web.schedule", (NavLink("schedule.index", "Schedule", ORGANISER),)),
    Page("sepia.web.judging", (NavLink("judging.queue", "Judging", ASSESSOR),
                               NavLink("judging.pools", "Pools", ORGANISER))),
    Page("sepia.web.rubric", (NavLink("rubric.judge", "Rubric", ASSESSOR),
                              NavLink("rubric.index", "Rubric", ORGANISER))),
    Page("sepia.web.guidelines", (NavLink("guidelines.index", "Guidelines", ORGANISER),)),
    Page("sepia.web.assessors", (NavLink("assessors.overview", "Assessors", ORGANISER),)),
    Page("sepia.web.participate", (NavLink("participate.home", "Runs", PARTICIPANT),)),
    Page("sepia.web.results", (NavLink("results.overview", "Results", ORGANISER),
                               NavLink("results.mine", "Results", PARTICIPANT))),
    Page("sepia.web.admin", (NavLink("admin.users", "Accounts", ORGANISER),)),
    Page("sepia.web.downloads"),
    Page("sepia.web.probes"),
    Page("sepia.web.support"),
)


def blueprints() -> list[Blueprint]:
    return [importlib.import_module(page.module).bp for page in PAGES]


@cache
def nav_links(role: str) -> tuple[NavLink, ...]:
    """The top bar's links for a role, in the order of PAGES."""
    return tuple(link for page in PAGES for link in page.links if role in link.roles)
