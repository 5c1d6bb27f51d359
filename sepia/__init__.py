"""SEPIA: nugget-based evaluation of question answering (NTCIR ACLIA style).

The public API (`sepia.api`) is reachable from the package root, imported on first use so that
`import sepia` stays light: `sepia.evaluate(gold="gold.xml", runs=["run.xml"], matcher="binarized")`."""

from sepia.versions import __version__ as __version__  # the version lives with the others (versions.py)

_API = ("agreement", "budget", "calibrate", "evaluate", "evaluate_ir4qa", "evaluate_qa", "evaluate_stored",
        "meta_evaluate", "plan_estimates", "validate", "Agreement", "BudgetSimulation", "Evaluation",
        "IR4QAEvaluation", "MetaEvaluation", "PlanEstimates", "QAEvaluation", "Validation")


def __getattr__(name: str):
    if name in _API:
        from sepia import api

        return getattr(api, name)
    raise AttributeError(f"module 'sepia' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
