from .cli import entry

entry(prog="python -m qwirkle_core")
