"""Regression examples for bugs the property tier found (one test per bug, plain pytest)."""
