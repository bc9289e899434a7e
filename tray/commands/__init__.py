"""Subcommands of the `termwise` command line, one module per family."""
