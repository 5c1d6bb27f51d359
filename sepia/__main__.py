"""`python -m sepia`: the `sepia` command, for an environment whose scripts are not on the PATH."""
from sepia.cli import main

main(prog_name="sepia")
