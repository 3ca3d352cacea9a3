package maint

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
)

// The shell of the maintenance screen: it takes the window's content over
// from the player's screens, locks the player out (Config.Lock), asks for a
// PIN, then shows the menu of the views the session's role may open beside
// the view chosen. It ends the session on Quitter and after the idle time,
// and gives the window back to the player's screens exactly as they were.

// Config is what the shell needs.
type Config struct {
	Office Office
	// Lock locks the player out while maintenance is open, and lets them
	// back (Machine.SetMaintenance).
	Lock func(on bool)
	Lang ui.Lang
	// Now is the kiosk's clock, Loc its time zone.
	Now func() time.Time
	Loc *time.Location
	// Idle ends a session, and closes a PIN pad nobody touches
	// (kiosk.DefaultOfficeIdle if 0).
	Idle time.Duration
	// PollEvery is how often the idle time and the pad's lock are checked
	// (a second if 0; negative: never, the tests call Poll).
	PollEvery time.Duration
	// Go and Do run work off the Fyne goroutine and back on it (a
	// goroutine and fyne.Do if nil).
	Go, Do func(func())
	// OnClose is called once the player's screens are back.
	OnClose func()
	// BlockDir is where the blocks view looks for block files, under
	// which a USB stick is mounted (the kiosk's block-dir; empty:
	// BlockDir).
	BlockDir string
	// Dev is the simulated bill validator of a development run (nil
	// otherwise): the test mode view offers its notes, the player's
	// development panel being out of reach under the maintenance screen.
	Dev DevNotes
}

func (c *Config) fill() {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Loc == nil {
		c.Loc = time.Local
	}
	if c.Idle <= 0 {
		c.Idle = kiosk.DefaultOfficeIdle
	}
	if c.PollEvery == 0 {
		c.PollEvery = time.Second
	}
	if c.Go == nil {
		c.Go = func(f func()) { go f() }
	}
	if c.Do == nil {
		c.Do = fyne.Do
	}
	if c.Lock == nil {
		c.Lock = func(bool) {}
	}
}

// Shell is the maintenance screen open in a window.
type Shell struct {
	cfg  Config
	win  fyne.Window
	ctx  context.Context
	tr   Tr
	prev fyne.CanvasObject
	// the canvas's key handlers before the shell took them (the PIN pad
	// reads a keyboard's digits), given back on Close
	prevRune func(rune)
	prevKey  func(*fyne.KeyEvent)

	session   *kiosk.Session
	lastTouch time.Time
	current   string // the view shown
	// menuOffset is where the menu is scrolled: a view shown keeps it.
	menuOffset fyne.Position
	pad        *pinPad
	// notice is said on the PIN pad when it shows again (the session
	// ended), in the language shown.
	notice word
	// testOn: the session turned test mode on (shell_testmode.go).
	testOn bool
	stop   chan struct{}
	closed bool
}

// Open takes over win for the maintenance screen: the player is locked
// out and the PIN pad shows.
func Open(win fyne.Window, cfg Config) *Shell {
	cfg.fill()
	sh := &Shell{cfg: cfg, win: win, ctx: context.Background(), tr: Tr{Lang: cfg.Lang}, prev: win.Content()}
	sh.prevRune, sh.prevKey = win.Canvas().OnTypedRune(), win.Canvas().OnTypedKey()
	cfg.Lock(true)
	sh.lastTouch = cfg.Now()
	sh.showPad()
	if cfg.PollEvery > 0 {
		sh.stop = make(chan struct{})
		go sh.pollLoop(sh.stop)
	}
	return sh
}

func (sh *Shell) pollLoop(stop chan struct{}) {
	t := time.NewTicker(sh.cfg.PollEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			sh.cfg.Do(func() {
				if !sh.closed {
					sh.Poll(sh.cfg.Now())
				}
			})
		}
	}
}

// Session is the session open (nil on the PIN pad).
func (sh *Shell) Session() *kiosk.Session { return sh.session }

// Current is the ID of the view shown ("" for the menu alone or the pad).
func (sh *Shell) Current() string { return sh.current }

// Closed reports whether the player's screens are back.
func (sh *Shell) Closed() bool { return sh.closed }

// touch is someone at the screen: the idle time starts again.
func (sh *Shell) touch() {
	sh.lastTouch = sh.cfg.Now()
	if t, ok := sh.cfg.Office.(interface{ Touch(*kiosk.Session) }); ok && sh.session != nil {
		t.Touch(sh.session)
	}
}

// Poll does what time alone does: a session idle too long ends (back to
// the PIN pad), a PIN pad idle too long gives the player's screens back,
// and a locked pad counts down.
func (sh *Shell) Poll(now time.Time) {
	if sh.closed {
		return
	}
	idle := now.Sub(sh.lastTouch) >= sh.cfg.Idle
	switch {
	case sh.session != nil && idle:
		sh.endSession("idle", sh.idleNotice())
	case sh.session != nil:
		s := sh.session
		sh.cfg.Go(func() {
			if sh.cfg.Office.Expire(sh.ctx, s) {
				sh.cfg.Do(func() {
					if sh.session == s {
						sh.endSession("idle", sh.idleNotice())
					}
				})
			}
		})
	case idle:
		sh.Close()
	default:
		sh.pad.tick(now)
	}
}

// endSession logs the session out and shows the PIN pad again, saying why.
func (sh *Shell) endSession(why string, notice word) {
	s := sh.session
	sh.session, sh.current, sh.testOn = nil, "", false
	sh.notice = notice
	sh.lastTouch = sh.cfg.Now()
	if s != nil {
		sh.cfg.Go(func() {
			if err := sh.cfg.Office.Logout(sh.ctx, s, why); err != nil {
				fmt.Fprintf(shLog, "maintenance: logout: %v\n", err)
			}
		})
	}
	sh.showPad()
}

// Quit ends the session (if any) and gives the window back to the
// player's screens; while test mode is on it asks first.
func (sh *Shell) Quit() {
	if sh.session != nil && sh.testOn {
		sh.touch()
		sh.askLeaveTestMode()
		return
	}
	if sh.session != nil {
		s := sh.session
		sh.session = nil
		sh.cfg.Go(func() {
			if err := sh.cfg.Office.Logout(sh.ctx, s, "done"); err != nil {
				fmt.Fprintf(shLog, "maintenance: logout: %v\n", err)
			}
		})
	}
	sh.Close()
}

// Close gives the window back to the player's screens as they were and
// lets the player back.
func (sh *Shell) Close() {
	if sh.closed {
		return
	}
	sh.closed = true
	if sh.stop != nil {
		close(sh.stop)
	}
	c := sh.win.Canvas()
	c.SetOnTypedRune(sh.prevRune)
	c.SetOnTypedKey(sh.prevKey)
	c.Unfocus()
	sh.win.SetContent(sh.prev)
	sh.cfg.Lock(false)
	if sh.cfg.OnClose != nil {
		sh.cfg.OnClose()
	}
}

// setLang shows the maintenance screen in l.
func (sh *Shell) setLang(l ui.Lang) {
	sh.touch()
	sh.tr = Tr{Lang: l}
	if sh.session == nil {
		sh.showPad()
		return
	}
	sh.showView(sh.current)
}

// showPad shows the PIN pad.
func (sh *Shell) showPad() {
	sh.pad = newPinPad(sh)
	c := sh.win.Canvas()
	c.SetOnTypedRune(sh.pad.typedRune)
	c.SetOnTypedKey(sh.pad.typedKey)
	sh.win.SetContent(shBackdrop(sh.pad.object()))
	sh.pad.start()
}

// loggedIn opens the menu for the session s.
func (sh *Shell) loggedIn(s *kiosk.Session) {
	sh.session = s
	sh.notice = ""
	sh.menuOffset = fyne.Position{}
	sh.touch()
	sh.showView("")
}

// Show opens the view id, if the session's role may: the menu only offers
// those, and a view asked for by its ID is refused the same way. It
// reports whether the view is shown.
func (sh *Shell) Show(id string) bool {
	if sh.session == nil || sh.closed {
		return false
	}
	if id != "" {
		if _, ok := shFind(sh.session, id); !ok {
			return false
		}
	}
	sh.touch()
	sh.showView(id)
	return true
}

// shFind is the view id among those the session s may open.
func shFind(s *kiosk.Session, id string) (View, bool) {
	for _, v := range viewsOf(s) {
		if v.ID == id {
			return v, true
		}
	}
	return View{}, false
}

// showView lays out the top bar, the menu and the view id ("": a welcome
// line instead).
func (sh *Shell) showView(id string) {
	s := sh.session
	tr := sh.tr
	sh.current = id
	// A view may take the keyboard (a scanner); the one left gives it back.
	c := sh.win.Canvas()
	c.SetOnTypedRune(nil)
	c.SetOnTypedKey(nil)
	var body fyne.CanvasObject
	if v, ok := shFind(s, id); ok && id != "" {
		env := &Env{Ctx: sh.ctx, Session: s, Tr: tr, Win: sh.win, Now: sh.cfg.Now, Loc: sh.cfg.Loc,
			Go: sh.cfg.Go, Do: sh.cfg.Do, Touch: sh.touch, BlockDir: sh.cfg.BlockDir, Dev: sh.cfg.Dev,
			TestMode: func(on bool) { sh.note(s, on) },
			Refresh: func() {
				if sh.session == s && sh.current == id {
					sh.showView(id)
				}
			}}
		body = v.Build(env, sh.cfg.Office)
	} else {
		sh.current = ""
		body = container.NewVBox(shTitle(tr.T("shell.welcome")), wrapped(tr.T("shell.choose")))
		if s.Diagnosis() {
			body.(*fyne.Container).Add(wrapped(tr.T("shell.diagnosis")))
		}
	}

	menu, chosen := sh.menu(s)

	role := tr.T("shell.role.staff")
	if s.Role() == kiosk.RoleTechnician {
		role = tr.T("shell.role.technician")
	}
	other, otherLang := "English", ui.English
	if tr.Lang == ui.English {
		other, otherLang = "Français", ui.French
	}
	lang := widget.NewButton(other, func() { sh.setLang(otherLang) })
	quit := widget.NewButton(tr.T("shell.quit"), sh.Quit)
	quit.Importance = widget.DangerImportance
	head := container.NewBorder(nil, nil,
		shText(tr.F("shell.title", role), 24, art.GoldLight, true), container.NewHBox(shSized(fyne.NewSize(140, 56), lang), shSized(fyne.NewSize(220, 56), quit)))
	line := canvas.NewRectangle(art.GoldDark)
	line.SetMinSize(fyne.NewSize(2, 2))
	content := container.NewBorder(container.NewVBox(head, line), nil,
		container.NewBorder(nil, nil, nil, canvas.NewRectangle(art.GoldDark), menu),
		nil, container.NewPadded(shFit(body)))
	sh.win.SetContent(shBackdrop(container.NewPadded(content)))
	sh.keepInSight(menu, chosen)
}

// menu is the menu of the views the session s may open, the technician's
// own first for a technician, each group under its name; chosen is the
// entry of the view shown (nil for none).
func (sh *Shell) menu(s *kiosk.Session) (menu *container.Scroll, chosen fyne.CanvasObject) {
	tr := sh.tr
	var own, staff []View
	for _, v := range viewsOf(s) {
		if v.Need == kiosk.RoleTechnician {
			own = append(own, v)
		} else {
			staff = append(staff, v)
		}
	}
	var items []fyne.CanvasObject
	group := func(title word, vs []View) {
		if len(vs) == 0 {
			return
		}
		if len(own) > 0 {
			items = append(items, container.New(layout.NewCustomPaddedLayout(8, 0, 0, 0), shText(tr.T(title), 16, art.Sand, true)))
		}
		for _, v := range vs {
			v := v
			b := widget.NewButton(tr.T(v.Title), func() { sh.Show(v.ID) })
			b.Alignment = widget.ButtonAlignLeading
			entry := shSized(fyne.NewSize(0, 56), b)
			if v.ID == sh.current {
				b.Importance = widget.HighImportance
				chosen = entry
			}
			items = append(items, entry)
		}
	}
	group("shell.menu.technician", own)
	group("shell.menu.staff", staff)
	// A smaller text than the views': the menu leaves them the room of
	// the smallest screen (1024 points across).
	menu = container.NewVScroll(container.NewThemeOverride(container.NewVBox(items...), shMenuTheme{fyne.CurrentApp().Settings().Theme()}))
	menu.Offset = sh.menuOffset
	return menu, chosen
}

// keepInSight scrolls the menu where it was, or as little as keeps the
// chosen entry in sight: choosing an entry never moves the menu under the
// finger.
func (sh *Shell) keepInSight(menu *container.Scroll, chosen fyne.CanvasObject) {
	off := sh.menuOffset
	if chosen != nil {
		y, h, view := chosen.Position().Y, chosen.Size().Height, menu.Size().Height
		switch {
		case y < off.Y:
			off.Y = y
		case y+h > off.Y+view:
			off.Y = y + h - view
		}
	}
	menu.ScrollToOffset(off)
	sh.menuOffset = menu.Offset
	menu.OnScrolled = func(p fyne.Position) { sh.menuOffset = p }
}

// shMenuTheme is the menu's theme: the kiosk's, with a smaller text and a
// button's padding to match.
type shMenuTheme struct{ fyne.Theme }

func (t shMenuTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameText:
		return 18
	case theme.SizeNameInnerPadding:
		return 12
	}
	return t.Theme.Size(n)
}

// shFit keeps a view within the window beside the menu: a view taller
// than the room left scrolls there, rather than growing the window past
// the screen. Never sideways: every view fits the width of the smallest
// screen (TestEveryViewFits).
func shFit(body fyne.CanvasObject) fyne.CanvasObject { return container.NewVScroll(body) }

// shBackdrop is the maintenance screen's background: plain, dark, unlike
// the player's screens.
func shBackdrop(o fyne.CanvasObject) fyne.CanvasObject {
	return container.NewStack(canvas.NewRectangle(art.Night), o)
}

// shTitle is a view's title.
func shTitle(s string) fyne.CanvasObject { return shText(s, 28, art.GoldLight, true) }

// shText is a line of text in a size and colour.
func shText(s string, size float32, c color.Color, bold bool) *canvas.Text {
	t := canvas.NewText(s, c)
	t.TextSize = size
	t.TextStyle = fyne.TextStyle{Bold: bold}
	return t
}

// shPara is a paragraph wrapped to its width, at least lines high (a
// wrapped label alone in a box asks for one line only).
func shPara(s string, lines int) fyne.CanvasObject {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	// A line of the label's text as the theme draws it (a fixed guess let
	// the third line of the voucher view's help run under its entry).
	line := fyne.MeasureText("Ég", theme.TextSize(), fyne.TextStyle{}).Height + theme.LineSpacing()
	return shSized(fyne.NewSize(0, float32(lines)*line+2*theme.InnerPadding()), l)
}

// shSizedLayout gives its objects at least a size: a finger's target.
type shSizedLayout struct{ min fyne.Size }

func (l shSizedLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l shSizedLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := l.min
	for _, o := range objs {
		m = m.Max(o.MinSize())
	}
	return m
}

// shSized keeps o at least min.
func shSized(min fyne.Size, o fyne.CanvasObject) fyne.CanvasObject {
	return container.New(shSizedLayout{min}, o)
}

// shLog is where the views write what went wrong (the kiosk's log).
var shLog io.Writer = os.Stderr

// shErr says why the back office refused or failed, in the language shown,
// and writes the error itself on the log (stderr).
func shErr(e *Env, err error) string {
	var msg string
	switch {
	case errors.Is(err, kiosk.ErrSessionEnded):
		msg = e.Tr.T("shell.err.session")
	case errors.Is(err, kiosk.ErrNotAllowed):
		msg = e.Tr.T("shell.err.role")
	default:
		msg = e.Tr.T("shell.err.other")
	}
	fmt.Fprintf(shLog, "maintenance: %s: %v\n", msg, err)
	return msg
}

var _ = words(map[word]text{
	"shell.title":           {"Maintenance · %s", "Maintenance · %s"},
	"shell.role.staff":      {"personnel", "staff"},
	"shell.role.technician": {"technicien", "technician"},
	"shell.quit":            {"Quitter", "Leave"},
	"shell.menu.technician": {"Technicien", "Technician"},
	"shell.menu.staff":      {"Personnel", "Staff"},
	"shell.welcome":         {"Bienvenue", "Welcome"},
	"shell.choose":          {"Choisissez une rubrique à gauche. La borne est fermée aux joueurs tant que vous êtes ici.", "Choose a view on the left. The kiosk is closed to players while you are here."},
	"shell.idle":            {"Session fermée après inactivité.", "Session closed after inactivity."},
	"shell.diagnosis":       {"Session de diagnostic : les données de la borne n’ont pas passé leurs vérifications, ou la borne n’a pas pu enregistrer votre connexion. Seules les vues qui lisent le diagnostic sont ouvertes.", "Diagnosis session: the kiosk’s data failed their checks, or the kiosk could not record your login. Only the views that read the diagnosis are open."},
	"shell.err.session":     {"Session terminée\u00a0: saisissez à nouveau votre code.", "Session ended: enter your PIN again."},
	"shell.err.role":        {"Réservé au technicien.", "For the technician only."},
	"shell.err.other":       {"Échec\u00a0: voyez le journal.", "Failed: see the event log."},
})
