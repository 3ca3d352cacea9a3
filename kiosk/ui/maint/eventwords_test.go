package maint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/ui"
)

// logSources are the Go files whose code logs events: the kiosk, its
// fleet and the store.
var logSources = []string{"../../*.go", "../../fleet/*.go", "../../../store/*.go"}

// loggers are the functions that log an event: how many arguments they
// take at least, and the place of the code and of the source among them
// (-1: the function has no source argument). A call to one of them whose
// code is not a string constant of the sources nor a function returning
// them is one of forwarded: a wrapper passing on its caller's code.
var loggers = map[string]struct{ args, code, source int }{
	"logf":     {3, 1, -1}, // Machine.logf, Game.logf, ImportBlockClaiming's
	"audit":    {3, 1, -1}, // Office.audit
	"logCash":  {4, 2, 1},  // Machine.logCash
	"logEvent": {4, 2, 1},  // store's wtx.logEvent
	"record":   {4, 2, -1}, // Access.record
	"refuse":   {3, 0, -1}, // Machine.refuse: a fault code
}

// forwarded are the arguments that pass on a code or a source a caller
// gave (the wrappers above), or a fault's code (its constants are read
// apart).
var forwarded = map[string]bool{"code": true, "source": true, "e.Code": true, "e.code": true, "e.Source": true,
	"e.source": true, "df.Code": true, "level": true}

// loggedCodes reads the sources for every code and source an event is
// logged with: the arguments of the loggers and the Code and Source of
// every store.Event written, resolved when they are constants or calls to
// functions that return constants. An argument it cannot resolve fails
// the test, unless it is forwarded.
func loggedCodes(t *testing.T) (codes, sources map[string][]string) {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, pattern := range logSources {
		names, err := filepath.Glob(pattern)
		require.NoError(t, err)
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			require.NoError(t, err)
			files = append(files, f)
		}
	}
	consts := map[string]string{}
	funcs := map[string]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					funcs[d.Name.Name] = d
				}
			case *ast.GenDecl:
				if d.Tok != token.CONST {
					continue
				}
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								consts[n.Name], _ = strconv.Unquote(lit.Value)
							}
						}
					}
				}
			}
		}
	}
	var resolve func(e ast.Expr) ([]string, bool)
	resolve = func(e ast.Expr) ([]string, bool) {
		switch x := e.(type) {
		case *ast.BasicLit:
			s, err := strconv.Unquote(x.Value)
			return []string{s}, err == nil
		case *ast.Ident:
			v, ok := consts[x.Name]
			return []string{v}, ok
		case *ast.SelectorExpr:
			v, ok := consts[x.Sel.Name]
			if _, pkg := x.X.(*ast.Ident); ok && pkg {
				return []string{v}, true
			}
		case *ast.CallExpr:
			id, ok := x.Fun.(*ast.Ident)
			if !ok || funcs[id.Name] == nil {
				return nil, false
			}
			var out []string
			all := true
			ast.Inspect(funcs[id.Name].Body, func(n ast.Node) bool {
				if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
					v, ok := resolve(r.Results[0])
					out, all = append(out, v...), all && ok
				}
				return true
			})
			return out, all && len(out) > 0
		}
		return nil, false
	}
	text := func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				return id.Name + "." + x.Sel.Name
			}
		}
		return ""
	}
	codes, sources = map[string][]string{}, map[string][]string{}
	add := func(into map[string][]string, e ast.Expr) {
		where := fset.Position(e.Pos()).String()
		if forwarded[text(e)] {
			return
		}
		vs, ok := resolve(e)
		if !ok {
			t.Errorf("%s: an event's code or source the test cannot read", where)
			return
		}
		for _, v := range vs {
			into[v] = append(into[v], where)
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				var name string
				switch fn := x.Fun.(type) {
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				case *ast.Ident:
					name = fn.Name
				}
				at, ok := loggers[name]
				if !ok || len(x.Args) < at.args {
					return true
				}
				if lit, ok := x.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					return true // a printf-style logf, not the event log's
				}
				add(codes, x.Args[at.code])
				if at.source >= 0 {
					add(sources, x.Args[at.source])
				}
			case *ast.CompositeLit:
				var typ string
				switch ty := x.Type.(type) {
				case *ast.Ident:
					typ = ty.Name
				case *ast.SelectorExpr:
					typ = ty.Sel.Name
				}
				if typ != "Event" {
					return true
				}
				for _, el := range x.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					switch k, _ := kv.Key.(*ast.Ident); {
					case k == nil:
					case k.Name == "Code":
						add(codes, kv.Value)
					case k.Name == "Source":
						add(sources, kv.Value)
					}
				}
			}
			return true
		})
	}
	// A fault is logged with its code (Machine.refuse): every fault the
	// kiosk declares.
	for name, v := range consts {
		if strings.HasPrefix(name, "Fault") && v != "" {
			codes[v] = append(codes[v], name)
		}
	}
	return codes, sources
}

// No event, no fault reaches the screen without its words: every code the
// kiosk, the store and the fleet log an event with, and every fault code,
// has its words in French and English (following French typography), and
// every source they log from its name; eventWords holds no code nobody
// logs.
func TestEveryEventCodeHasWords(t *testing.T) {
	codes, sources := loggedCodes(t)
	require.Greater(t, len(codes), 80, "the codes logged: the test reads the sources it means to")
	require.Contains(t, codes, "voucher_refused")
	require.Contains(t, codes, "validator_check", "a fault's code")
	require.Contains(t, codes, "note_uncertain", "a code a function returns")
	require.Contains(t, codes, "pin_wrong", "a code of a store constant")
	var missing []string
	for c, where := range codes {
		e, ok := eventWords[c]
		if !ok {
			missing = append(missing, c+" ("+where[0]+")")
			continue
		}
		assert.NotEmpty(t, strings.TrimSpace(e.fr), c)
		assert.NotEmpty(t, strings.TrimSpace(e.en), c)
		for _, fault := range ui.FrenchTypographyFaults(e.fr) {
			t.Errorf("event %q: %s in %q", c, fault, e.fr)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "event codes without words")
	for c := range eventWords {
		assert.Contains(t, codes, c, "eventWords has %q, which nothing logs", c)
	}
	for s, where := range sources {
		assert.Contains(t, sourceWords, s, "source %q (%s) has no name", s, where[0])
	}
	for _, role := range []string{"staff", "technician", "setup"} {
		assert.Contains(t, sourceWords, role, "a setting's change is logged with who made it")
	}
}

// shown are the calls that put a text on the screen, or build one.
var shown = map[string]bool{"F": true, "Sprintf": true, "Sprint": true, "NewLabel": true, "NewLabelWithStyle": true,
	"SetText": true, "failText": true, "ok": true, "say": true, "rptRow": true, "shPara": true, "shText": true,
	"NewButton": true, "NewText": true}

// raw are what the kiosk writes for the technician, never a sentence of
// the screen: an error's text, an event's or a fault's code, source and
// detail, a voucher's void reason.
var raw = map[string]bool{"Detail": true, "Code": true, "Source": true, "VoidReason": true}

// rawShown lists where the package's files (not its tests) put an error's
// text or a code as it is on the screen, other than through Tr.Detail: an
// argument of a call that shows text (shown) that is an error, a call of
// Error(), or a raw field; through string concatenation and fmt's
// formatting, stopping at any other call (its result is words).
func rawShown(t *testing.T, pattern string) []string {
	t.Helper()
	names, err := filepath.Glob(pattern)
	require.NoError(t, err)
	fset := token.NewFileSet()
	var found []string
	var check func(e ast.Expr)
	check = func(e ast.Expr) {
		switch x := e.(type) {
		case *ast.ParenExpr:
			check(x.X)
		case *ast.BinaryExpr:
			check(x.X)
			check(x.Y)
		case *ast.Ident:
			if x.Name == "err" || strings.HasSuffix(x.Name, "Err") {
				found = append(found, fset.Position(x.Pos()).String()+": an error shown as it is")
			}
		case *ast.SelectorExpr:
			if raw[x.Sel.Name] {
				found = append(found, fset.Position(x.Pos()).String()+": ."+x.Sel.Name+" shown as it is")
			}
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
				switch {
				case sel.Sel.Name == "Error":
					found = append(found, fset.Position(x.Pos()).String()+": an error's text shown as it is")
				case sel.Sel.Name == "Sprintf" || sel.Sel.Name == "Sprint":
					for _, a := range x.Args {
						check(a)
					}
				}
			}
		}
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			switch x := call.Fun.(type) {
			case *ast.SelectorExpr:
				fn = x.Sel.Name
			case *ast.Ident:
				fn = x.Name
			}
			if shown[fn] {
				for _, a := range call.Args {
					check(a)
				}
			}
			return true
		})
	}
	return found
}

// No refusal reaches the screen as the kiosk's developer text: an error,
// an event's or a fault's code and detail are shown only as the technical
// detail under the words that say them (Tr.Detail, rptRefusal).
func TestErrorsReachTheScreenOnlyAsDetail(t *testing.T) {
	found := rawShown(t, "*.go")
	assert.Empty(t, found)
	// The check sees what it should: a file that shows an error as the
	// sentence.
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.go")
	require.NoError(t, os.WriteFile(bad, []byte(`package maint
func bad(tr Tr, err error, e store.Event) {
	l := widget.NewLabel(e.Detail)
	l.SetText(tr.F("x", err.Error()))
	l.SetText("x: " + e.Code)
	l.SetText(tr.Detail(err.Error()))
}
`), 0o644))
	assert.Len(t, rawShown(t, bad), 3)
}
