from .cli import entry

# Guarded: Dask's worker processes start by importing the parent's main module.
if __name__ == "__main__":
    entry(prog="python -m qwirkle_core")
