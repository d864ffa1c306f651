"""Benchmarks and measures: each module runs as ``python -m benchmarks.<name>`` from the repository root.

Every one prints its result beside a baseline measured in the same run (machines are
shared and noisy); ``benchmarks.common`` holds the paths and loaders they share.
"""
