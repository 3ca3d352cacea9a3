package maint

import (
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The layouts the views share so that each fits every kiosk screen, from
// 1024×768 up, in both languages: nothing sized to a fixed width a longer
// word would overflow, rows of buttons that wrap, a label and its value
// that go on two lines when one is short, tables whose rows fold. A layout
// that folds says so in its minimum size once it knows its width; the
// window's driver then lays its parents out again (a wrapped label does
// the same).

// shFlow is a row of buttons, each at its own size, that goes on to the
// next line when the width runs out.
func shFlow(objs ...fyne.CanvasObject) *fyne.Container {
	return container.New(&shFlowLayout{}, objs...)
}

// shFlowLayout lays its objects out at their own size, left to right,
// going on to the next line when the width runs out.
type shFlowLayout struct {
	width float32 // the width last laid out (0: not yet)
}

// place calls at for each object shown, with its place at width, and
// returns the height it all takes.
func (l *shFlowLayout) place(objs []fyne.CanvasObject, width float32, at func(fyne.CanvasObject, fyne.Position, fyne.Size)) float32 {
	gap := theme.Padding()
	var x, y, line float32
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		if x > 0 && x+m.Width > width {
			x, y, line = 0, y+line+gap, 0
		}
		if at != nil {
			at(o, fyne.NewPos(x, y), m)
		}
		x += m.Width + gap
		line = max(line, m.Height)
	}
	return y + line
}

func (l *shFlowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	l.place(objs, size.Width, func(o fyne.CanvasObject, p fyne.Position, m fyne.Size) {
		o.Move(p)
		o.Resize(m)
	})
}

// MinSize is as narrow as its widest object, as high as its lines at the
// width it was given (on one line before that).
func (l *shFlowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objs {
		if o.Visible() {
			w = max(w, o.MinSize().Width)
		}
	}
	width := l.width
	if width == 0 {
		width = l.natural(objs)
	}
	return fyne.NewSize(w, l.place(objs, width, nil))
}

// natural is the width of all its objects on one line.
func (l *shFlowLayout) natural(objs []fyne.CanvasObject) float32 {
	var w float32
	n := 0
	for _, o := range objs {
		if o.Visible() {
			w += o.MinSize().Width
			n++
		}
	}
	if n > 1 {
		w += float32(n-1) * theme.Padding()
	}
	return w
}

// shNaturalWidth is the width o needs on one line: a label's whole text,
// wrapped or not; a flow's objects side by side.
func shNaturalWidth(o fyne.CanvasObject) float32 {
	if c, ok := o.(*fyne.Container); ok {
		if f, ok := c.Layout.(*shFlowLayout); ok {
			return f.natural(c.Objects)
		}
	}
	l, ok := o.(*widget.Label)
	if !ok || l.Wrapping == fyne.TextWrapOff {
		return o.MinSize().Width
	}
	size := theme.TextSize()
	if l.SizeName != "" {
		size = theme.Size(l.SizeName)
	}
	// a point more than measured: given exactly its width, a wrapped
	// label may still break its last word
	return float32(math.Ceil(float64(fyne.MeasureText(l.Text, size, l.TextStyle).Width))) + 1 + 2*theme.InnerPadding()
}

// shSelectWidth is the width of a choice that shows the longest of opts.
func shSelectWidth(opts []string) float32 {
	var w float32
	for _, o := range opts {
		w = max(w, fyne.MeasureText(o, theme.TextSize(), fyne.TextStyle{}).Width)
	}
	return w + 4*theme.InnerPadding() + theme.IconInlineSize()
}

// shPairLayout puts a label (the first object) and its value (the
// second) on one line, the value after it, when both fit; otherwise the
// value goes under the label, indented. The pairs of a group (a form's
// rows) give their labels the width of the widest, so that their values
// line up.
type shPairLayout struct {
	width float32 // the width last laid out (0: not yet)
	group *shPairGroup
}

// shPairGroup is the labels of pairs whose values line up.
type shPairGroup struct{ labels []fyne.CanvasObject }

// shPairIndent is how far a value under its label is moved in.
const shPairIndent = 24

// labelWidth is the width of the label's column.
func (l *shPairLayout) labelWidth(label fyne.CanvasObject) float32 {
	if l.group == nil {
		return shNaturalWidth(label)
	}
	var w float32
	for _, o := range l.group.labels {
		w = max(w, shNaturalWidth(o))
	}
	return w
}

func (l *shPairLayout) oneLine(objs []fyne.CanvasObject, width float32) bool {
	return l.labelWidth(objs[0])+theme.Padding()+shNaturalWidth(objs[1]) <= width
}

func (l *shPairLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	label, value := objs[0], objs[1]
	lw := l.labelWidth(label)
	if l.oneLine(objs, size.Width) {
		label.Move(fyne.NewPos(0, 0))
		label.Resize(fyne.NewSize(lw, size.Height))
		x := lw + theme.Padding()
		value.Move(fyne.NewPos(x, 0))
		value.Resize(fyne.NewSize(size.Width-x, size.Height))
		return
	}
	label.Move(fyne.NewPos(0, 0))
	label.Resize(fyne.NewSize(size.Width, label.MinSize().Height))
	lh := label.MinSize().Height // at its width now, if it wraps
	label.Resize(fyne.NewSize(size.Width, lh))
	value.Move(fyne.NewPos(shPairIndent, lh))
	value.Resize(fyne.NewSize(size.Width-shPairIndent, size.Height-lh))
}

func (l *shPairLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	label, value := objs[0].MinSize(), objs[1].MinSize()
	w := max(label.Width, value.Width+shPairIndent)
	if l.width == 0 || l.oneLine(objs, l.width) {
		return fyne.NewSize(w, max(label.Height, value.Height))
	}
	return fyne.NewSize(w, label.Height+value.Height)
}

// shPair is a label and its value, on one line or two (shPairLayout).
func shPair(label, value fyne.CanvasObject) *fyne.Container {
	return container.New(&shPairLayout{}, label, value)
}

// pair is a label and its value whose value lines up with the group's
// others.
func (g *shPairGroup) pair(label, value fyne.CanvasObject) *fyne.Container {
	g.labels = append(g.labels, label)
	return container.New(&shPairLayout{group: g}, label, value)
}

// foldTable is a table whose rows fold: a row's cells sit on one line when
// the width allows, else on two or more lines, each column keeping its
// place from row to row (the head folds as the rows do). Every row may end
// with an action (a button), at the right of its lines.
type foldTable struct {
	// lead: the first column takes a line of its own when a row folds (a
	// meter's name above its figures).
	lead bool
	// gap is the room between two columns.
	gap      float32
	rows     []*foldRow
	measured *foldWidths
}

type foldWidths struct {
	cols         []float32
	action, line float32
}

type foldRow struct {
	cells  []fyne.CanvasObject
	action fyne.CanvasObject
}

func newFoldTable(lead bool, gap float32) *foldTable { return &foldTable{lead: lead, gap: gap} }

// row adds a row of cells, with an action or nil, and returns it to be
// placed in the table's box. A nil lead cell (the head's) takes no line of
// its own when the row folds.
func (t *foldTable) row(cells []fyne.CanvasObject, action fyne.CanvasObject) fyne.CanvasObject {
	r := &foldRow{cells: cells, action: action}
	t.rows = append(t.rows, r)
	t.measured = nil
	var objs []fyne.CanvasObject
	for _, c := range cells {
		if c != nil {
			objs = append(objs, c)
		}
	}
	if action != nil {
		objs = append(objs, action)
	}
	return container.New(&foldRowLayout{t: t, r: r}, objs...)
}

// widths are each column's widest cell, the widest action and the
// tallest cell (a line of the row), measured once: a table's cells do not change (a new list
// is a new table).
func (t *foldTable) widths() (cols []float32, action, line float32) {
	if t.measured != nil {
		return t.measured.cols, t.measured.action, t.measured.line
	}
	defer func() { t.measured = &foldWidths{cols, action, line} }()
	for _, r := range t.rows {
		for i, c := range r.cells {
			if i >= len(cols) {
				cols = append(cols, 0)
			}
			if c == nil {
				continue
			}
			m := c.MinSize()
			cols[i] = max(cols[i], m.Width)
			line = max(line, m.Height)
		}
		if r.action != nil {
			action = max(action, r.action.MinSize().Width)
		}
	}
	return cols, action, line
}

// foldPlan is how a row is laid out: on lines lines, the columns after
// the lead (if any) by slots per line, each slot as wide as slot[j].
type foldPlan struct {
	lines, per int
	slot       []float32
	need       float32 // the width it takes
}

// plan is the plan of the fewest lines that fits width (every column on
// its own line if none does).
func (t *foldTable) plan(width float32) foldPlan {
	cols, action, _ := t.widths()
	n := len(cols)
	if n == 0 {
		return foldPlan{lines: 1}
	}
	room := float32(0)
	if action > 0 {
		room = t.gap + action
	}
	var p foldPlan
	for lines := 1; lines <= n; lines++ {
		p = t.planOf(cols, lines, room)
		if p.need <= width {
			return p
		}
	}
	return p
}

func (t *foldTable) planOf(cols []float32, lines int, room float32) foldPlan {
	first, rest := 0, cols
	if t.lead && lines > 1 {
		first, rest = 1, cols[1:]
	}
	folds := lines - first
	per := (len(rest) + folds - 1) / folds
	p := foldPlan{lines: first + (len(rest)+per-1)/per, per: per, slot: make([]float32, per)}
	for i, w := range rest {
		p.slot[i%per] = max(p.slot[i%per], w)
	}
	for j, w := range p.slot {
		p.need += w
		if j > 0 {
			p.need += t.gap
		}
	}
	if first == 1 {
		p.need = max(p.need, cols[0])
	}
	p.need += room
	return p
}

// foldRowLayout lays one row of its table out.
type foldRowLayout struct {
	t     *foldTable
	r     *foldRow
	width float32 // the width last laid out (0: not yet)
}

func (l *foldRowLayout) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	t := l.t
	p := t.plan(size.Width)
	_, action, line := t.widths()
	vgap := theme.Padding()
	cells := l.r.cells
	lines := p.lines
	if t.lead && lines > 1 && cells[0] == nil {
		lines--
	}
	y := (size.Height - float32(lines)*line - float32(lines-1)*vgap) / 2 // a row as high as its action: its lines in the middle
	if t.lead && p.lines > 1 {
		if cells[0] != nil {
			cells[0].Move(fyne.NewPos(0, y))
			cells[0].Resize(fyne.NewSize(size.Width-action, line))
			y += line + vgap
		}
		cells = cells[1:]
	}
	x := float32(0)
	for i, c := range cells {
		j := i % p.per
		if j == 0 && i > 0 {
			x, y = 0, y+line+vgap
		}
		if c != nil {
			c.Move(fyne.NewPos(x, y))
			c.Resize(fyne.NewSize(p.slot[j], line))
		}
		x += p.slot[j] + t.gap
	}
	if a := l.r.action; a != nil {
		// after the columns, not at the far end of a wide screen
		h := a.MinSize().Height
		a.Move(fyne.NewPos(min(size.Width, p.need)-action, (size.Height-h)/2))
		a.Resize(fyne.NewSize(action, h))
	}
}

func (l *foldRowLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	t := l.t
	_, _, line := t.widths()
	// As narrow as the table folds, as high as it is at the width it
	// was given (on one line before that).
	narrowest := t.plan(0)
	p := t.plan(l.width)
	if l.width == 0 {
		p = t.plan(float32(1 << 30))
	}
	lines := p.lines
	if t.lead && lines > 1 && l.r.cells[0] == nil {
		lines--
	}
	h := float32(lines)*line + float32(lines-1)*theme.Padding()
	if l.r.action != nil {
		h = max(h, l.r.action.MinSize().Height)
	}
	return fyne.NewSize(narrowest.need, h)
}

// shMessage keeps room for lines of a message that comes and goes (a
// refusal beside its field), set closer to its edges than a label is: the
// rows under it do not move when it shows.
func shMessage(o fyne.CanvasObject, lines int) fyne.CanvasObject {
	const pad = 6
	line := fyne.MeasureText("Ég", theme.TextSize(), fyne.TextStyle{}).Height + theme.LineSpacing()
	return shTight(shSized(fyne.NewSize(0, float32(lines)*line+2*pad), o), pad)
}

// shRoomLayout gives its object the whole room it has, and asks for no
// more than min: for the game widget, which draws itself at any size (its
// own minimum is the player's screen's, wider than a view beside the menu).
type shRoomLayout struct{ min fyne.Size }

func (l shRoomLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l shRoomLayout) MinSize([]fyne.CanvasObject) fyne.Size { return l.min }

// shTight draws o with its texts pad from their edges instead of the
// theme's inner padding: a keypad's keys, a table's cells, whose texts are
// short and many.
func shTight(o fyne.CanvasObject, pad float32) fyne.CanvasObject {
	return container.NewThemeOverride(o, shPadTheme{fyne.CurrentApp().Settings().Theme(), pad})
}

// shPadTheme is the kiosk's theme with another inner padding.
type shPadTheme struct {
	fyne.Theme
	pad float32
}

func (t shPadTheme) Size(n fyne.ThemeSizeName) float32 {
	if n == theme.SizeNameInnerPadding {
		return t.pad
	}
	return t.Theme.Size(n)
}
