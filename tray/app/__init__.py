"""The Qt tray application: icon, menus, hotkey, the bridge to the GUI thread."""
