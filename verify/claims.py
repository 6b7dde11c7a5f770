"""The registry of every claim: importing this module imports every study's ``verify`` module.

Add a study by adding its module here (see the README, "Adding a study").
"""
from verify import augmentation, double_descent, grokking, perceptron, strata, transitive  # noqa: F401

STUDIES = ("augmentation", "double_descent", "grokking", "perceptron", "strata", "transitive")
