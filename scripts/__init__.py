"""Scripts of the checkout, not of the installed package: `docs.py` (`make docs`)."""
