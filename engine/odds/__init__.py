"""Exact odds over every ruleset: each roll weighed through `decide` itself."""
