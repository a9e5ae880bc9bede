package tray

// platformIcon is an ICO with every size: the Windows tray loads nothing
// else, and picks 16, 24 or 32 px by the screen's scaling.
func platformIcon(k iconKey) []byte { return wrapICO(iconPNGs(k)...) }
