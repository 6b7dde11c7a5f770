"""The registry of every claim: importing this module imports every study's ``verify`` module.

Add a study by adding its module here (see the README, "Adding a study").
"""
from verify import double_descent, grokking, strata, transitive  # noqa: F401

STUDIES = ("double_descent", "grokking", "strata", "transitive")
