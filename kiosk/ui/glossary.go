package ui

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Glossary holds the words docs/glossary.md forbids in each language of
// the screens: the catalogues' tests (TestGlossary) check every text
// against it.
type Glossary struct {
	forbidden [numLangs][]forbiddenWord
}

type forbiddenWord struct {
	word, meaning string
	re            *regexp.Regexp
}

// ErrGlossary: the glossary's table cannot be read.
var ErrGlossary = errors.New("glossary: no table of forbidden words")

// glossaryColumns are the headers of the glossary's columns of forbidden
// words, by language.
var glossaryColumns = [numLangs]string{French: "not in french", English: "not in english"}

// ParseGlossary reads the forbidden words of a glossary written as
// docs/glossary.md is: a Markdown table whose first column says what is
// meant and whose columns "Not in French" and "Not in English" hold the
// words, each between backquotes.
func ParseGlossary(md string) (Glossary, error) {
	var g Glossary
	col := [numLangs]int{-1, -1}
	n := 0
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			col = [numLangs]int{-1, -1}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if col[French] < 0 {
			for i, c := range cells {
				for l, h := range glossaryColumns {
					if strings.EqualFold(strings.TrimSpace(c), h) {
						col[l] = i
					}
				}
			}
			continue
		}
		for l := range col {
			if col[l] < 0 || col[l] >= len(cells) {
				continue
			}
			parts := strings.Split(cells[col[l]], "`")
			for i := 1; i < len(parts); i += 2 {
				w := strings.TrimSpace(parts[i])
				if w == "" {
					continue
				}
				re, err := regexp.Compile(`(?i)(^|[^\p{L}])` + regexp.QuoteMeta(w) + `(s|x)?($|[^\p{L}])`)
				if err != nil {
					return Glossary{}, fmt.Errorf("glossary: %q: %w", w, err)
				}
				g.forbidden[l] = append(g.forbidden[l], forbiddenWord{word: w, meaning: strings.TrimSpace(cells[0]), re: re})
				n++
			}
		}
	}
	if n == 0 {
		return Glossary{}, ErrGlossary
	}
	return g, nil
}

// ReadGlossary reads the glossary file at path (docs/glossary.md).
func ReadGlossary(path string) (Glossary, error) {
	md, err := os.ReadFile(path)
	if err != nil {
		return Glossary{}, fmt.Errorf("glossary: %w", err)
	}
	return ParseGlossary(string(md))
}

// Faults lists the words of text, in language l, that the glossary
// forbids, each with what it must not name.
func (g Glossary) Faults(l Lang, text string) []string {
	var out []string
	for _, f := range g.forbidden[l] {
		if f.re.MatchString(text) {
			out = append(out, fmt.Sprintf("%q (not a word for: %s)", f.word, f.meaning))
		}
	}
	return out
}

// Words is how many words the glossary forbids in l.
func (g Glossary) Words(l Lang) int { return len(g.forbidden[l]) }

// counted is a count written before a plural noun: the noun's plural is
// the count's, not the text's ("%d billets" reads "1 billets"; the
// maintenance screen's Tr.Count writes a count with its noun).
var counted = regexp.MustCompile(`%d[ \x{a0}]\p{L}{2,}[sx]($|[^\p{L}])`)

// TextFaults lists what a catalogue's text, in French and in English,
// breaks of the glossary: a word it forbids in the text's language, and a
// count written before a plural noun.
func (g Glossary) TextFaults(fr, en string) []string {
	var out []string
	for l, s := range [numLangs]string{French: fr, English: en} {
		for _, f := range g.Faults(Lang(l), s) {
			out = append(out, fmt.Sprintf("%s: %s in %q", Lang(l), f, s))
		}
		if counted.MatchString(s) {
			out = append(out, fmt.Sprintf("%s: a count before a plural noun in %q", Lang(l), s))
		}
	}
	return out
}
