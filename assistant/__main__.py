"""`python -m assistant ...`."""

from .cli import main

main()
