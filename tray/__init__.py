"""The Termwise process: tray, command line, hotkeys and the session host."""

# The release, kept here so `--version` needs no package-metadata scan at every start
# (tests/test_packaging.py keeps it equal to pyproject.toml's).
VERSION = "0.1.0"
