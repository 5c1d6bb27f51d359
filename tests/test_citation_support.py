"""Citation support: weighted support precision and recall (TREC RAG: full 1, partial 0.5, none 0)
by hand and against a second implementation, the support TSV's checks, agreement, and the CLI."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from click.testing import CliRunner
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from sepia.cli import main
from sepia.formats.errors import FormatError
from sepia.formats.judgments import SUPPORT_HEADER, parse_judgments
from sepia.formats.model import Answer, CCLQARun, CCLQATopic, Judgment, Metadata
from sepia.formats.write import to_xml
from sepia.metaeval.support_agreement import support_agreement
from sepia.scoring.support import support_scores

RUN = "T-EN-EN-01-T"
T1, T2, T3 = "RAG2025-EN-1", "RAG2025-EN-2", "RAG2025-EN-3"


def run() -> CCLQARun:
    return CCLQARun(Metadata(RUN), [
        CCLQATopic(T1, [Answer(1, "s1", ["d1", "d2"]), Answer(2, "s2", ["d3"]), Answer(3, "s3", [])]),
        CCLQATopic(T2, [Answer(1, "s1", ["d1"])]),
        CCLQATopic(T3, [])])  # not answered: left out of the means


JUDGMENTS = [Judgment(T1, RUN, 1, "d1", 1, "a"),
             Judgment(T1, RUN, 1, "d2", 0.5, "a"), Judgment(T1, RUN, 1, "d2", 0, "b"), Judgment(T1, RUN, 1, "d2", 0.5, "c"),
             Judgment(T2, RUN, 1, "d1", 0.5, "a"), Judgment(T2, RUN, 1, "d1", 0.5, "b"), Judgment(T2, RUN, 1, "d1", 0.5, "c")]


def test_by_hand():
    result, = support_scores([run()], JUDGMENTS)
    t1, t2 = result.topics
    # T1: citations w = 1, 0.5 (upper median of 0.5, 0, 0.5), 0 (unjudged); sentences max = 1, 0, 0 (none cited)
    assert (t1.precision, t1.recall, t1.sentences, t1.citations, t1.unjudged) == (0.5, 1 / 3, 3, 3, 1)
    assert (t2.precision, t2.recall) == (0.5, 0.5)
    assert (result.precision, result.recall) == (0.5, (1 / 3 + 0.5) / 2)


def test_agreement_by_hand_and_against_statsmodels():
    agreement = support_agreement(JUDGMENTS)
    assert (agreement.pairs, agreement.exact) == (2, 0.5)
    counts = np.array([[1, 2, 0], [0, 3, 0]])  # none, partial, full per pair
    assert agreement.fleiss_kappa == pytest.approx(statsmodels_fleiss(counts), abs=1e-12)
    # Krippendorff's alpha by hand (ordinal over the two levels used, none < partial: like nominal with
    # two values): coincidences o(0,P) = o(P,0) = 2/2 = 1, o(P,P) = 2/2 + 6/2 = 4; n = 6, n_0 = 1, n_P = 5;
    # alpha = 1 - (n - 1) * o(0,P) * 2 * d / (n_0 * n_P * 2 * d) = 1 - 5 * 1 / 5 = 0
    assert agreement.krippendorff_alpha == pytest.approx(0.0, abs=1e-12)


def second_implementation(run_, judgments):
    """The measures spelled out again, straight from the definitions, one loop each."""
    values = {}
    for j in judgments:
        values.setdefault((j.topic_id, j.answer_rank, j.nugget_id), []).append(j.match)
    w = {k: sorted(v, reverse=True)[(len(v) + 1) // 2 - 1] for k, v in values.items()}
    precisions, recalls = [], []
    for topic in run_.topics:
        if not topic.answers:
            continue
        cited = [w.get((topic.topic_id, a.rank, d), 0) for a in topic.answers for d in set(a.docids)]
        precisions.append(sum(cited) / len(cited) if cited else 0)
        recalls.append(np.mean([max([w.get((topic.topic_id, a.rank, d), 0) for d in a.docids] or [0])
                                for a in topic.answers]))
    return np.mean(precisions), np.mean(recalls)


@pytest.mark.parametrize("seed", range(5))
def test_random_runs_against_a_second_implementation(seed):
    rng = random.Random(seed)
    docs = [f"msmarco_v2.1_doc_00_{i}#0_0" for i in range(8)]
    topics = [CCLQATopic(f"RAG2025-EN-{t}", [Answer(r, f"s{r}", rng.sample(docs, rng.randint(0, 3)))
                                               for r in range(1, rng.randint(1, 6))]) for t in range(1, 9)]
    run_ = CCLQARun(Metadata(RUN), topics)
    judgments = [Judgment(t.topic_id, RUN, a.rank, d, rng.choice([0, 0.5, 1]), assessor)
                 for t in topics for a in t.answers for d in a.docids for assessor in "abc"[:rng.randint(1, 3)]
                 if rng.random() < 0.9]
    result, = support_scores([run_], judgments)
    assert (result.precision, result.recall) == pytest.approx(second_implementation(run_, judgments), abs=1e-12)


def test_support_tsv_is_checked():
    header = "\t".join(SUPPORT_HEADER)
    long_docid = "msmarco_v2.1_doc_" + "1" * 100 + "#0_0"  # longer than a nugget ID may be, as segment IDs can be
    assert parse_judgments(f"{header}\n{T1}\t{RUN}\t1\t{long_docid}\t0.5\ta\n", "s.tsv", SUPPORT_HEADER)[0].nugget_id == long_docid
    with pytest.raises(FormatError) as info:
        parse_judgments(f"{header}\n{T1}\t{RUN}\t1\t\tfull\ta\n", "s.tsv", SUPPORT_HEADER)
    assert [str(p) for p in info.value.problems] == ["s.tsv:2:29: DOCID is empty",
                                                     "s.tsv:2:30: support must be 1, 0 or 0.5, got 'full'"]


def test_cli(tmp_path):
    (tmp_path / "run.xml").write_bytes(to_xml(run()))
    support = tmp_path / "support.tsv"
    support.write_text("\t".join(SUPPORT_HEADER) + "\n" + "".join(
        f"{j.topic_id}\t{j.run_id}\t{j.answer_rank}\t{j.nugget_id}\t{j.match:g}\t{j.assessor}\n" for j in JUDGMENTS))
    result = CliRunner().invoke(main, ["evaluate-support", "--run", str(tmp_path / "run.xml"), "--support", str(support)])
    assert result.exit_code == 0, result.output
    assert f"{RUN}     0.5000  0.4167       2          4          4         1" in result.output
    assert "agreement on 2 citations judged twice or more: exact 0.500" in result.output
    result = CliRunner().invoke(main, ["evaluate-support", "--run", str(tmp_path), "--support", str(support),
                                       "--format", "json"])
    data = json.loads(result.output)
    assert data["runs"][0]["recall"] == pytest.approx(5 / 12) and data["agreement"]["pairs"] == 2
