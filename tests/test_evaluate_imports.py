"""`sepia evaluate` without --calibrate does not load scipy (half a second of CPU a process, issue 23
item 3); --calibrate still finds it."""
import subprocess
import sys


def test_the_evaluate_command_loads_no_scipy_until_calibrate_asks():
    code = ("import sys; import sepia.cli, sepia.commands.evaluate; assert 'scipy' not in sys.modules, 'scipy'; "
            "from sepia.commands.calibrate import calibrate_tsv; calibrate_tsv({'language_pairs': []}); "
            "import sepia.metaeval.calibrate; assert 'scipy' in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
