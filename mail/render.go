package mail

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	texttemplate "text/template"
)

// builtin holds the built-in templates: templates/<locale>/<file>.
//
//go:embed templates
var builtin embed.FS

// The files of a locale: the layouts and partials every message uses, and
// per template <name>.txt (defining "subject" and "content") and
// <name>.html (defining "content").
const (
	layoutText   = "layout.txt"
	layoutHTML   = "layout.html"
	partialsText = "partials.txt"
	partialsHTML = "partials.html"
)

// Renderer renders messages from the built-in templates, overridden file
// by file by those of a folder (--mail-templates): for a message in
// locale L, each file is the folder's L/<file>, else the built-in
// L/<file>, else the folder's en/<file>, else the built-in en/<file>.
// Templates are parsed once, when the Renderer is made, so that a broken
// override stops the service at start rather than a message later.
type Renderer struct {
	locales []string
	sets    map[string]*set // by locale + "/" + template
}

// set is one template in one locale, parsed.
type set struct {
	text *texttemplate.Template
	html *htmltemplate.Template
}

// Rendered is a rendered message.
type Rendered struct {
	Subject, Text, HTML string
}

// NewRenderer parses the built-in templates, overridden by those in dir
// when dir is not "".
func NewRenderer(dir string) (*Renderer, error) {
	var over fs.FS
	if dir != "" {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("--mail-templates (or COMMERCE_MAIL_TEMPLATES) %s: %w", dir, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("--mail-templates (or COMMERCE_MAIL_TEMPLATES) %s: not a folder", dir)
		}
		over = os.DirFS(dir)
	}
	base, err := fs.Sub(builtin, "templates")
	if err != nil {
		return nil, err
	}
	r := &Renderer{sets: map[string]*set{}}
	for _, src := range []fs.FS{base, over} {
		if src == nil {
			continue
		}
		entries, err := fs.ReadDir(src, ".")
		if err != nil {
			return nil, fmt.Errorf("mail templates: %w", err)
		}
		for _, e := range entries {
			if e.IsDir() && !slices.Contains(r.locales, e.Name()) && validLocale(e.Name()) {
				r.locales = append(r.locales, e.Name())
			}
		}
	}
	read := func(locale, name string) (string, string, error) {
		for _, l := range []string{locale, DefaultLocale} {
			for _, src := range []fs.FS{over, base} {
				if src == nil {
					continue
				}
				b, err := fs.ReadFile(src, path.Join(l, name))
				if err == nil {
					where := "built-in " + l + "/" + name
					if src == over {
						where = path.Join(dir, l, name)
					}
					return string(b), where, nil
				}
				if !errors.Is(err, fs.ErrNotExist) {
					return "", "", fmt.Errorf("mail template %s/%s: %w", l, name, err)
				}
			}
		}
		return "", "", fmt.Errorf("mail template %s/%s: not found", locale, name)
	}
	for _, l := range r.locales {
		for _, t := range Templates {
			s, err := parseSet(l, t, read)
			if err != nil {
				return nil, err
			}
			r.sets[l+"/"+t] = s
		}
	}
	// A template that parses may still fail (a field that does not
	// exist): render each once now, not in a message later.
	for _, l := range r.locales {
		for _, t := range Templates {
			if _, err := r.Render(t, l, sampleData(t, l, Shop{Name: "Shop", URL: "http://localhost:3000"})); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// validLocale reports whether a folder name is a locale: letters, digits
// and "-", such as en, es, pt-BR.
func validLocale(s string) bool {
	if s == "" || len(s) > 35 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// parseSet parses the text and HTML templates of one message in one
// locale.
func parseSet(locale, name string, read func(locale, name string) (string, string, error)) (*set, error) {
	s := &set{text: texttemplate.New(name).Funcs(texttemplate.FuncMap(funcs)),
		html: htmltemplate.New(name).Funcs(htmltemplate.FuncMap(funcs))}
	for _, f := range []string{layoutText, partialsText, name + ".txt"} {
		src, where, err := read(locale, f)
		if err != nil {
			return nil, err
		}
		if _, err := s.text.New(where).Parse(src); err != nil {
			return nil, fmt.Errorf("mail template %s: %w", where, err)
		}
	}
	for _, f := range []string{layoutHTML, partialsHTML, name + ".html"} {
		src, where, err := read(locale, f)
		if err != nil {
			return nil, err
		}
		if _, err := s.html.New(where).Parse(src); err != nil {
			return nil, fmt.Errorf("mail template %s: %w", where, err)
		}
	}
	for _, def := range []string{"subject", "content", "layout"} {
		if s.text.Lookup(def) == nil {
			return nil, fmt.Errorf("mail template %s/%s.txt (or its layout): defines no %q", locale, name, def)
		}
	}
	for _, def := range []string{"content", "layout"} {
		if s.html.Lookup(def) == nil {
			return nil, fmt.Errorf("mail template %s/%s.html (or its layout): defines no %q", locale, name, def)
		}
	}
	return s, nil
}

// funcs are the functions the templates may call besides Go's built-in
// ones.
var funcs = map[string]any{
	// join joins lines: {{join .Lines ", "}}.
	"join": strings.Join,
	// button makes the argument of the layout's "button" template:
	// {{template "button" (button .Order.URL "View your order")}}.
	"button": func(url, label string) Button { return Button{URL: url, Label: label} },
}

// Button is a call to action: a link shown as a button.
type Button struct{ URL, Label string }

// Locales returns the locales messages can be rendered in: the built-in
// ones and the folders of the override folder.
func (r *Renderer) Locales() []string { return slices.Clone(r.locales) }

// Locale resolves the locale of a message (ResolveLocale over Locales).
func (r *Renderer) Locale(candidates ...string) string {
	return ResolveLocale(r.locales, candidates...)
}

// Render renders a template in a locale with its data; the subject is
// one line, its spaces collapsed.
func (r *Renderer) Render(template, locale string, d *Data) (Rendered, error) {
	s := r.sets[locale+"/"+template]
	if s == nil {
		return Rendered{}, fmt.Errorf("mail: no template %s in locale %q", template, locale)
	}
	d.Locale = locale
	var subj, text, html bytes.Buffer
	if err := s.text.ExecuteTemplate(&subj, "subject", d); err != nil {
		return Rendered{}, fmt.Errorf("mail template %s/%s subject: %w", locale, template, err)
	}
	d.Subject = strings.Join(strings.Fields(subj.String()), " ")
	if err := s.text.ExecuteTemplate(&text, "layout", d); err != nil {
		return Rendered{}, fmt.Errorf("mail template %s/%s.txt: %w", locale, template, err)
	}
	if err := s.html.ExecuteTemplate(&html, "layout", d); err != nil {
		return Rendered{}, fmt.Errorf("mail template %s/%s.html: %w", locale, template, err)
	}
	return Rendered{Subject: d.Subject, Text: tidyText(text.String()), HTML: html.String()}, nil
}

// tidyText trims the spaces at the ends of lines and keeps at most one
// blank line in a row, so that templates may be laid out readably.
func tidyText(s string) string {
	var b strings.Builder
	blank := 0
	for line := range strings.SplitSeq(strings.TrimSpace(s), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
