"""Qt windows: the floating overlay, settings, memory and deploy windows."""
