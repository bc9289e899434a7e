"""The Termwise process: tray, command line, hotkeys and the session host."""
