"""`python -m ssdtwin` runs the command line."""

from ssdtwin.cli import main

main(prog_name="ssdtwin")
