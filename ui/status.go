package ui

// windowTitle is the window's title on a scene: the scene's name (a preset's, or a file's path).
func windowTitle(scene string) string { return "Tumble: " + scene }

// updateTitle names the scene now open in the window's title, once per change: whatever loaded it
// (the preset browser, Open, a reset, a replay file).
func (a *App) updateTitle() {
	if a.win == nil {
		return
	}
	if t := windowTitle(a.S.Name()); t != a.title {
		a.title = t
		a.win.SetTitle(t)
	}
}

// status puts an outcome in the panel's status line (seen with its section closed), as do does for
// a command's.
func (a *App) status(msg string, isErr bool) {
	p := &a.panel
	p.errSeq = a.S.ErrSeq()
	p.message, p.isErr = msg, isErr
}
