"""The README's two commands are what CI runs."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert lines[0] == "```" and lines[3] == "```"
    run_cmd, test_cmd = lines[1], lines[2]
    assert "python -m gentheory run --all --scale quick" in run_cmd
    ci = (ROOT / ".ci" / "run").read_text()
    install, test = test_cmd.split(" && ")
    assert install in ci and test in ci
