package tray

// platformIcon wraps the PNG in an ICO: the Windows tray loads nothing else.
func platformIcon(png []byte) []byte { return wrapICO(png) }
