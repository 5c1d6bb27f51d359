"""What `sepia metaeval aeollm` checks and says (issue 21, item 7): an evaluator's run has five
columns and ranks that follow its scores; questions whose human (or predicted) scores are constant,
where tau and rho are undefined, are counted and reported (acc keeps them)."""
import numpy as np
import pytest
from scipy import stats

from sepia.formats.errors import FormatError
from sepia.metaeval.aeollm import compare, parse_scores


def test_aeollm_run_files_have_five_columns_and_ranks_that_follow_the_scores():
    with pytest.raises(FormatError) as exc:
        parse_scores("1 q1 a1 0.9 1\n1 q1 a2 0.5\n", "run.txt", strict=True)
    assert [str(p) for p in exc.value.problems] == [
        "run.txt:2:1: expected 'taskId questionId answerId score rank', got 4 fields"]
    # a2 scores below a1 but ranks above it; a3 ties a2 (any rank among equals), b's rank 0
    text = "1 q1 a1 0.9 2\n1 q1 a2 0.5 1\n1 q1 a3 0.5 3\n1 q1 a4 0.1 3\n2 q1 b 0.1 0\n"
    with pytest.raises(FormatError) as exc:
        parse_scores(text, "run.txt", strict=True)
    messages = [str(p) for p in exc.value.problems]
    assert messages == [
        "run.txt:2:13: rank 1 of answer a2 (score 0.5) contradicts answer a1 on line 1, scored higher (0.9) with rank 2",
        "run.txt:4:13: rank 3 of answer a4 (score 0.1) contradicts answer a3 on line 3, scored higher (0.5) with rank 3",
        "run.txt:5:12: rank 0 is below 1"]
    # equal scores may share or swap ranks; the header line is allowed
    assert len(parse_scores("taskId questionId answerId score rank\n1 q a 0.5 2\n1 q b 0.5 1\n1 q c 0.2 3\n",
                            strict=True)) == 3
    # human files may still leave the rank out
    assert len(parse_scores("1 q a 3\n1 q b 2\n")) == 2


def test_aeollm_counts_questions_whose_human_scores_are_constant():
    """q1's human scores are all 3 (tau and rho undefined): out of their means, in acc; q3's predicted
    scores are all equal; q2 is the only question tau and rho average."""
    human = parse_scores("1 q1 a 3\n1 q1 b 3\n1 q2 a 1\n1 q2 b 2\n1 q2 c 3\n1 q3 a 1\n1 q3 b 2\n")
    predicted = parse_scores("1 q1 a 0.9 1\n1 q1 b 0.1 2\n1 q2 a 0.1 3\n1 q2 b 0.5 1\n1 q2 c 0.3 2\n"
                             "1 q3 a 0.5 1\n1 q3 b 0.5 1\n", strict=True)
    (row,), overall, warnings = compare(predicted, human)
    assert (row.correlated, row.constant_human, row.constant_predicted) == (1, 1, 1)
    # tau-b and rho of q2 alone: human 1 2 3 against 0.1 0.5 0.3
    assert row.tau == pytest.approx(stats.kendalltau([1, 2, 3], [0.1, 0.5, 0.3]).statistic)
    assert row.rho == pytest.approx(0.5)
    # acc keeps all three: q1 0 of 1 pair (humans tie, the metric does not), q2 2 of 3, q3 0 of 1
    assert row.acc == pytest.approx(np.mean([0, 2 / 3, 0]))
    assert warnings == ["tau and rho are undefined for 1 questions whose human scores are all equal and 1 whose "
                        "predicted scores are: left out of the tau and rho means (1 questions), kept in acc"]
    assert overall.as_dict()["constant_human"] == 1


def test_aeollm_command_reports_constant_questions_and_refuses_four_columns(tmp_path):
    import json

    from click.testing import CliRunner

    from sepia.cli import main

    (tmp_path / "human.txt").write_text("1 q1 a 3\n1 q1 b 3\n1 q2 a 1\n1 q2 b 2\n")
    (tmp_path / "run.txt").write_text("1 q1 a 0.9 1\n1 q1 b 0.1 2\n1 q2 a 0.1 2\n1 q2 b 0.5 1\n")
    args = ["metaeval", "aeollm", "--pred", str(tmp_path / "run.txt"), "--human", str(tmp_path / "human.txt")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "tau/rho over  constant human" in result.stdout
    assert "warning: tau and rho are undefined for 1 questions whose human scores are all equal" in result.stderr
    data = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
    assert (data["overall"]["tau_rho_questions"], data["overall"]["constant_human"]) == (1, 1)
    (tmp_path / "run.txt").write_text("1 q1 a 0.9\n1 q1 b 0.1\n")
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 1 and "run.txt:1:1: expected 'taskId questionId answerId score rank'" in refused.output
